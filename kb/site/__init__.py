"""Stage: the static site (mkdocs-material), generated from the records only."""
