"""练习 (L6-L10): puzzles from real positions, graded exactly by the solver.

* :mod:`~yahtzee.training.puzzle` — a position, an answer, and its grade;
* :mod:`~yahtzee.training.themes` — what a puzzle is about (「专项练习」);
* :mod:`~yahtzee.training.explain` — the sentences a child reads after answering;
* :mod:`~yahtzee.training.bank` — the shipped bank and how it is generated;
* :mod:`~yahtzee.training.progress` — the spaced-repetition schedule (FSRS) and the
  ratings (Glicko-2) of players and puzzles.

Depends on the rules, the solver, the players and the review (never on storage or the
server).
"""
