"""The MCP server: ten tools as thin adapters over the bridge to the app."""
