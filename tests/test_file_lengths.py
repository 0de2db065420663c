"""No module over 450 lines without a sentence in its docstring saying why: a long
file is a sign that two concerns share it, so one that stays long says so ("Over 450 lines
because ...") where a reader looks first."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 450
REASON = "Over 450 lines because"


def test_long_modules_say_why():
    unexplained = []
    for path in sorted([*(ROOT / "src").rglob("*.py"), *(ROOT / "tests").glob("*.py")]):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > LIMIT:
            docstring = ast.get_docstring(ast.parse(text)) or ""
            if REASON not in " ".join(docstring.split()):
                unexplained.append(f"{path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    assert not unexplained, (f"split these, or say why in the module docstring "
                             f"('{REASON} ...'): {unexplained}")
