"""Experiments over one palace: its query sets and the evaluation of many modes on them
(:mod:`~palace_lab.experiments.query_sets`), A/B sessions (:mod:`~palace_lab.experiments.ab`),
card versions side by side (:mod:`~palace_lab.experiments.card_versions`), fusion tuning
(:mod:`~palace_lab.experiments.fusion_tuning`) and the retrieval figures of the Overview
(:mod:`~palace_lab.experiments.story`)."""
