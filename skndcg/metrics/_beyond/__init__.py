"""Beyond-accuracy measures of recommendation lists: coverage, diversity,
novelty and popularity, calibration and exposure, and their top-k ranking."""
