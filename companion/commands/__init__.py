"""The `companion` subcommands that sit on the rules core."""
