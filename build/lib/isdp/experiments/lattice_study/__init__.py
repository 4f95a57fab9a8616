"""Steps E1 and E2 share (ISDP §6): tuning the proposal, coupled pairs and their TV bounds, the
retained draws, unbiasedness tables and noise box plots, run per experiment over the wildcard ``{exp}``."""
