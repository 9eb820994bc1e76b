"""The floor every other one stands on: records, errors, works, curated data, integrity, inputs."""
