"""The app service: one event loop owns the state; the bridge and UI talk to it."""
