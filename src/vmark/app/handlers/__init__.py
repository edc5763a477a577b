"""Request handlers: tool actions for agents, the UI protocol for the person."""
