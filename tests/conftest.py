import sys
from pathlib import Path

# Make tests/naive.py importable as `naive` from every test module.
sys.path.insert(0, str(Path(__file__).parent))
