"""The application: build, check, serve and the kb command, on top of every other floor."""
