"""``master``'s learned evaluation: pattern tables over the men, fitted on self-play, added to the hand-picked features.

The board is cut into :data:`~ai.patterns.regions.REGIONS`, overlapping groups of eight squares; each configuration of
men on a group (empty, the side to move's man, the opponent's man: 3**8 = 6,561 of them) has a learned weight in two
phases (a full board and an empty one, mixed by the number of pieces). The evaluation of a position is the hand-picked
features' value plus the sum of its groups' weights, always from the side to move's point of view (a position with
White to move is turned half a turn first).

- :mod:`~ai.patterns.regions`: the groups, the index of a configuration, and a plain-Python evaluation of given weights
  (the reference the compiled kernel, :mod:`ai.kernel.patterns`, is tested against);
- :mod:`~ai.patterns.weights`: the shipped weights and their description.

How they are made is :mod:`ai.pattern_training`'s concern.
"""
