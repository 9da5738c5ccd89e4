"""GURPS rules, one module a subject; each is pure: numbers and dice in, a frozen result out.

Rulebook: GURPS; every ambiguity is settled by tracker/systems/gurps/RULINGS.md, and the
rulings these modules add where both are silent are written in their docstrings ("Ruling:").
The numbers they read are the rulebook's tables in ``tracker.systems.gurps.tables``.

- ``success``: the success roll, criticals and margins; ``Modifier`` and ``OUTCOMES``.
- ``presets``: modifiers by name (task difficulty, equipment, time, haste).
- ``defaults``: the level a trait is rolled at, the sheet's or its best default.
- ``attempts``: retry modes and cinematic buy-ups.
- ``contests``: Quick, Resistance (Rule of 16) and Regular Contests.
- ``fright_table`` and ``fright``: the fright table as data, and Fright Checks.
- ``influence``: reaction rolls and influence rolls.
- ``feats``: climbing, jumping, running, swimming and extra effort.
- ``senses``: hearing, vision, and the sheet's sense advantages.
- ``projects``: major projects.
- ``shared``: what the modules above share.
"""
