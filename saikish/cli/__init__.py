"""The command line: the main entry and one module per subcommand."""
