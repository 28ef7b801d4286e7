"""King Me Discord bot."""
