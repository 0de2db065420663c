"""Bit identity: a change that is not meant to change the model must not change what a seed
trains, for every method.

Each case trains a small model on a synthetic corpus made here with a fixed seed and compares
the sha256 of its float64 ``components_`` and ``doc_topic_prior_`` (and, for a few cases, of
``transform``), and ``components_[0, 0]``, with a recorded fingerprint (`GOLDEN`). A difference
of one bit anywhere fails. When a change is *meant* to alter the numbers (a new random stream, a
different rounding), rerun this module as a script (``PYTHONPATH=src python
tests/test_bit_identity.py``) to print the new fingerprints, paste them into `GOLDEN`, and say in
the commit why they moved and how far (e.g. the largest relative change of a fitted model).

One thread: results do not depend on the thread count (tests/test_thread_determinism.py), and
one thread is the cheap way to run on a shared machine.
"""

import hashlib
import tempfile

import numpy as np
import pytest

from streamtopics.corpus.synthetic import generate_synthetic
from streamtopics.estimators import CVB0LDA, GibbsLDA, OnlineLDA

pytestmark = pytest.mark.usefixtures("one_thread")


def _corpus():
    corpus, _ = generate_synthetic(n_topics=3, n_words=30, n_documents=120, mean_length=15,
                                   seed=18)
    return corpus


def _online(method, batch_size=25, **extra):
    def train(corpus):
        model = OnlineLDA(3, method=method, batch_size=batch_size, local_passes=5, n_passes=2,
                          random_state=7, **extra).fit(corpus)
        return model, model.transform(corpus.counts[:10])
    return train


def _online_auto(corpus):
    model = OnlineLDA(3, method="g-oem", batch_size=25, local_passes=5, random_state=7).fit(corpus)
    return model, None


def _online_partial(corpus):
    model = OnlineLDA(3, method="v-oem", local_passes=5, random_state=7)
    for start in range(0, corpus.n_documents, 40):
        model.partial_fit(corpus.counts[start:start + 40])
    return model, None


def _online_stream(corpus):
    """`train_stream` over a docword file: its minibatches are the model"s ``batch_size``."""
    from streamtopics.corpus.writer import write_corpus_dir
    from streamtopics.training import train_stream
    with tempfile.TemporaryDirectory() as folder:
        path = write_corpus_dir(corpus, folder) / "train.docword.txt"
        model = OnlineLDA(3, method="g-oem", batch_size=30, local_passes=5, n_passes=1,
                          random_state=7)
        train_stream(model, path)
    return model, None


def _gibbs(sampler, estimator="p"):
    def train(corpus):
        model = GibbsLDA(3, n_passes=30, burn_in=10, lag=2, n_samples=3, sampler=sampler,
                         estimator=estimator, random_state=7)
        model.fit(corpus)
        return model, model.transform(corpus.counts[:10])
    return train


def _gibbs_optimised(corpus):
    model = GibbsLDA(3, n_passes=30, burn_in=10, lag=2, n_samples=3, n_chains=2,
                     optimize_alpha=True, optimize_eta=True, optimize_interval=5, random_state=7)
    return model.fit(corpus), None


def _cvb0(corpus):
    model = CVB0LDA(3, n_passes=20, transform_passes=10, random_state=7).fit(corpus)
    return model, model.transform(corpus.counts[:10])


CASES = {
    "g-oem": _online("g-oem"),
    "g-oem dense": _online("g-oem", local_sampler="dense"),
    "g-oem++": _online("g-oem++"),
    "g-oem++ dense": _online("g-oem++", local_sampler="dense"),
    "v-oem": _online("v-oem"),
    "v-oem++": _online("v-oem++"),
    "olda": _online("olda"),
    "svb": _online("svb"),
    "splda": _online("splda"),
    "sgs": _online("sgs"),
    "vargibbs": _online("vargibbs"),
    # Full batch: every step is the whole corpus, its E-step in chunks of FULL_BATCH_CHUNK (100).
    "batch-vb": _online("batch-vb", batch_size=100),
    "g-oem averaged": _online("g-oem", averaging=True),
    "olda updated eta": _online("olda", update_topic_word_prior=True),
    "g-oem auto passes": _online_auto,
    "v-oem partial_fit": _online_partial,
    "g-oem train_stream": _online_stream,
    "GibbsLDA sparse": _gibbs("sparse"),
    "GibbsLDA dense standard": _gibbs("dense", "standard"),
    "GibbsLDA optimised priors": _gibbs_optimised,
    "CVB0LDA": _cvb0,
}


def _digest(array) -> str:
    data = np.ascontiguousarray(np.asarray(array, dtype=np.float64))
    return hashlib.sha256(data.tobytes()).hexdigest()[:16]


def fingerprint(case: str) -> dict:
    model, proportions = CASES[case](_corpus())
    return {"components": _digest(model.components_), "alpha": _digest(model.doc_topic_prior_),
            "transform": None if proportions is None else _digest(proportions),
            "first": float(np.asarray(model.components_)[0, 0])}


# Recorded with one numba thread. The Gibbs online methods run the sparse local kernel ("auto");
# the "dense" cases pin the dense reference kernel.
GOLDEN = {  # case: components, alpha, transform (sha256 prefixes), components_[0, 0]
    "CVB0LDA": dict(components="e92feae914351fed", alpha="0351a20942b1eef0",
        transform="3d73486ea502946b", first=0.04821735629983416),
    "GibbsLDA dense standard": dict(components="1d00df1e89f311dc", alpha="0351a20942b1eef0",
        transform="0b325590b5b29bfe", first=0.04766306738362291),
    "GibbsLDA optimised priors": dict(components="ff9e3a57cdb6e26a", alpha="02501eadf47d4aaf",
        transform=None, first=0.046663702018048515),
    "GibbsLDA sparse": dict(components="b20baff268e3801e", alpha="0351a20942b1eef0",
        transform="d544e2c60f44b6be", first=0.047413067826546605),
    "batch-vb": dict(components="535807051202c4a5", alpha="ab5d3ff1118f719e",
        transform="ede8e7a6120d1c49", first=0.026074860798112665),
    "g-oem": dict(components="e3db326078016348", alpha="ac66ff6625f1a63d",
        transform="a90d551036cdd676", first=0.00306847612369887),
    "g-oem dense": dict(components="55ad9c77fa80a9d0", alpha="dc226871791af8f6",
        transform="8ab2f8289040a81a", first=0.0030535529665124167),
    "g-oem auto passes": dict(components="02c6742d636a3757", alpha="5ba37df9978f99db",
        transform=None, first=0.001676583004992701),
    "g-oem averaged": dict(components="513c23130e1ef633", alpha="6a51ca7f15acb1da",
        transform="a0275c60c8aae45a", first=0.007130169661177547),
    "g-oem train_stream": dict(components="be1bd0a11e42171d", alpha="8e0e17a6b6f74c4c",
        transform=None, first=0.016884703810354066),
    "g-oem++": dict(components="82956c0826d32be0", alpha="ebe5533ca160589b",
        transform="850717bd1f69755e", first=0.001287131279822649),
    "g-oem++ dense": dict(components="ea88919cecc98eaf", alpha="0cf9b0b101122bec",
        transform="d8934c5335afa27c", first=0.0014522877651069808),
    "olda": dict(components="d4d7f3737555b0f6", alpha="5187f3c8838a251f",
        transform="9399c3ba626c3756", first=0.0031638529815406886),
    "olda updated eta": dict(components="d9def0e1a3e35b28", alpha="364784529f5008bb",
        transform="3f5631a74c69a9ae", first=0.002990421003639626),
    "sgs": dict(components="1b5af55636ebc217", alpha="ab5d3ff1118f719e",
        transform="0587506c82060da1", first=0.008948545861297539),
    "splda": dict(components="9ec636322745c2bb", alpha="c837f545618f8985",
        transform="e1f15d154c48cb39", first=0.0029613831115523344),
    "svb": dict(components="1a23f9c947aaf81a", alpha="02ef07ed7ae63f23",
        transform="40acfdf6b2e3cd9e", first=0.008187132053539197),
    "v-oem": dict(components="1f423f8c585d3647", alpha="f561241b3ae822ca",
        transform="c9bddda8190f94b5", first=0.0028684532378111523),
    "v-oem partial_fit": dict(components="e30b839f6525f585", alpha="9d3b505bad24702d",
        transform=None, first=0.027007256875880657),
    "v-oem++": dict(components="af278a24bc31a723", alpha="7aca300ec88b22e7",
        transform="5769d8f097819830", first=0.001172518811863035),
    "vargibbs": dict(components="93ab5bafaa1196b2", alpha="ab5d3ff1118f719e",
        transform="2d29118fc91cc455", first=0.0032609675338198915),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_numbers_as_before_the_refactoring(case):
    assert fingerprint(case) == GOLDEN[case]


if __name__ == "__main__":
    import numba
    numba.set_num_threads(1)
    for name in sorted(CASES):
        print(f"    {name!r}: {fingerprint(name)!r},")  # paste into GOLDEN
