"""``streamtopics demo``: the main job recovers the planted topics and scores near the truth."""

import json

from streamtopics.cli.main import main


def test_demo_recovers_the_true_model(capsys):
    assert main(["demo", "--documents", "3000", "--test-documents", "200", "-k", "5",
                 "--words", "200", "--methods", "g-oem", "--particles", "10", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    truth, g_oem = result["models"]
    assert truth["method"] == "true model" and g_oem["method"] == "g-oem"
    assert g_oem["mean_tv_to_truth"] < 0.12
    # Same documents, same seed: the fitted model's held-out log-perplexity per document is
    # within a few standard errors of the true model's.
    gap = g_oem["held_out"]["log_perplexity_per_document"] - truth["held_out"]["log_perplexity_per_document"]
    assert abs(gap) < 3 * truth["held_out"]["log_perplexity_per_document_se"]
