#!/usr/bin/env python3
"""Writes the libFuzzer dictionary of HLO text (tools/fuzz/hlo.dict) from the
registries: every opcode of spec/ops.def, every attribute name of
spec/attributes.def (as `name=`), every element type of
spec/types/primitive_types.def, and the format's fixed keywords and
punctuation. Run from the repository root; the output is committed.
"""
import re
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
words = []


def add(token):
    if token not in words:
        words.append(token)


for kw in ["HloModule", "ENTRY", "ROOT", "parameter", "constant", "{...}",
           "entry_computation_layout=", "is_scheduled=true", "->", "true",
           "false", "inf", "-inf", "nan", "nan(0x1)", "-0.0", "0x",
           "metadata={op_name=\"x\"}", "sharding={replicated}",
           "backend_config=", "frontend_attributes=", "to_apply=",
           "condition=", "body=", "calls=", "/*index=5*/", "%", "{1,0}",
           "{0}", "[<=", "S(1)", "T(8,128)", "E(4)", "(", ")", "{", "}",
           "[", "]", ",", "=", ":", "\""]:
    add(kw)

# The golden file format (golden/README.md, conformance/harness/
# golden_case.cc kKnownKeys), for golden_case_fuzz.
for key in ["op", "class", "provenance", "profile", "impl", "compare",
            "module", "arg", "expect", "expect_error", "known_failure", "note",
            "infeed", "recv", "expect_outfeed", "expect_sent",
            "custom_call_library"]:
    add(key + ":")
for kw in ["\ncase ", "\n  ", "exact", "ulp", "any", "xla", "portable",
           "custom_call_test_lib", ".C1"]:
    add(kw)

for line in (root / "spec/ops.def").read_text().splitlines():
    m = re.match(r'HLOREF_OP\(\w+, "([^"]+)"', line)
    if m:
        add(m.group(1))
for line in (root / "spec/attributes.def").read_text().splitlines():
    m = re.match(r'HLOREF_ATTR\(\w+, "([^"]+)"', line)
    if m:
        add(m.group(1) + "=")
for line in (root / "spec/types/primitive_types.def").read_text().splitlines():
    m = re.match(r'HLOREF_PRIMITIVE_TYPE\(\w+, "([^"]+)"', line)
    if m:
        add(m.group(1))
        add(m.group(1) + "[]")

out = root / "tools/fuzz/hlo.dict"
with out.open("w") as f:
    f.write("# libFuzzer dictionary of HLO text, written by "
            "tools/fuzz/make_hlo_dict.py from spec/ops.def,\n"
            "# spec/attributes.def and spec/types/primitive_types.def: "
            "do not edit by hand.\n")
    for w in words:
        esc = w.replace("\\", "\\\\").replace('"', '\\"').replace(
            "\n", "\\x0A")
        f.write(f'"{esc}"\n')
print(f"{out}: {len(words)} entries", file=sys.stderr)
