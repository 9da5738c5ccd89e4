"""Pure folds over the log: ``state = apply(state, event)``, rebuildable from scratch."""
