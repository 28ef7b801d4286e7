"""King Me's AI players: search, evaluation, learning agents, training and the arena. Depends on core only.

The application's entry is :mod:`ai.api` (the player types, the level registry and the function a worker runs).
"""
