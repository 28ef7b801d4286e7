"""How ``master``'s pattern weights (:mod:`ai.patterns`) are made: self-play positions, then the fit.

- :mod:`~ai.pattern_training.selfplay`: training positions from self-play of the compiled kernel;
- :mod:`~ai.pattern_training.fit`: logistic regression of the outcomes on the evaluation (numpy), writing the weights
  file the kernel reads;
- ``python -m ai.pattern_training generate|fit|show``: the commands (the README's Performance section has the
  settings that made the shipped weights and how long each step took).
"""
