"""The synthetic MedQADE release: the embedded default until the physician archive is public."""

from medqade.synthetic.facts import Fact, load_facts
from medqade.synthetic.simulate import simulate
from medqade.synthetic.write import fingerprint, synthesize

__all__ = ["Fact", "fingerprint", "load_facts", "simulate", "synthesize"]
