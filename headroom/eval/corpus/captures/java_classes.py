"""Java class-file dumps: the JDK's ``javap -v -p`` (constant pool, fields with their constant
values, every method's flags, descriptor, ``stack=, locals=, args_size=``, bytecode, line and
exception tables) and ``javap -c -p`` (signatures and bytecode only) of a class the capture
writes and compiles with ``javac`` (~50 methods, ~2,000 lines verbose).

The methods are alike (small arithmetic steps) except for a few: one whose nested expression
needs far the deepest operand stack, one with far the most local variables, one with far the
longest bytecode, the only one with an exception handler, the only synchronized one, the only
one declaring a checked exception and the only one with a switch; two ``static final``
constants. Facts come from the capture's own class-file reader (it decodes the constant pool,
fields and methods and each ``Code`` attribute of the ``.class`` file), never from ``javap``'s
text: the answer is a method as ``javap`` names it (its name and parameter types), a
``stack=N`` figure, or a constant's type and value. Held out (issue 33, ninth round): no dev
source holds class-file dumps.
"""

from __future__ import annotations

import random
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "java_classes"
CLASS = "LedgerCompactor"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC"}
PRIMITIVES = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int", "J": "long", "S": "short",
              "Z": "boolean", "V": "void"}


# The methods that each stand alone: a handler, a monitor, a checked exception, a switch.
ODD_METHODS = """\
    private int parseQuota(String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
    public synchronized void flushPending() {
        total = 0;
    }
    public byte[] loadSegment(Path path) throws IOException {
        return Files.readAllBytes(path);
    }
    private String tierName(int tier) {
        switch (tier) {
            case 0: return "hot";
            case 1: return "warm";
            case 2: return "cold";
            case 3: return "frozen";
            default: return "unknown";
        }
    }
"""


# --- the class-file reader -------------------------------------------------------------------

@dataclass(frozen=True)
class Method:
    name: str
    descriptor: str
    flags: int
    max_stack: int = 0
    max_locals: int = 0
    code_length: int = 0
    handlers: int = 0
    declares_exceptions: bool = False

    @property
    def signature(self) -> str:
        """``name(type, type)`` as ``javap`` spells a method's parameters."""
        return f"{self.name}({', '.join(java_types(self.descriptor[1:self.descriptor.index(')')]))})"


def java_types(descriptors: str) -> list[str]:
    """``I[JLjava/lang/String;`` -> ``["int", "long[]", "java.lang.String"]``."""
    out, at = [], 0
    while at < len(descriptors):
        dims = 0
        while descriptors[at] == "[":
            dims, at = dims + 1, at + 1
        if descriptors[at] == "L":
            end = descriptors.index(";", at)
            base, at = descriptors[at + 1:end].replace("/", "."), end + 1
        else:
            base, at = PRIMITIVES[descriptors[at]], at + 1
        out.append(base + "[]" * dims)
    return out


class ClassReader:
    """Just enough of the JVM class-file format: constant pool, fields' constants, methods' code."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 8
        assert data[:4] == b"\xca\xfe\xba\xbe"
        self.pool: dict[int, Any] = {}
        count, index = self.u2(), 1
        while index < count:
            tag = self.u1()
            if tag == 1:
                n = self.u2()
                self.pool[index] = self.take(n).decode("utf-8")
            elif tag in (3, 4):
                self.pool[index] = struct.unpack(">i" if tag == 3 else ">f", self.take(4))[0]
            elif tag in (5, 6):
                self.pool[index] = struct.unpack(">q" if tag == 5 else ">d", self.take(8))[0]
                index += 1  # longs and doubles take two slots
            elif tag == 15:
                self.take(3)
            elif tag in (7, 8, 16, 19, 20):
                self.take(2)
            else:  # field/method/interface refs, NameAndType, (Invoke)Dynamic
                self.take(4)
            index += 1
        self.take(6)
        self.take(2 * self.u2())  # interfaces
        self.constants = dict(self._member(field=True) for _ in range(self.u2()))
        self.methods = [self._member(field=False) for _ in range(self.u2())]

    def u1(self) -> int:
        return self.take(1)[0]

    def u2(self) -> int:
        return int.from_bytes(self.take(2), "big")

    def take(self, n: int) -> bytes:
        chunk = self.data[self.at:self.at + n]
        self.at += n
        return chunk

    def _member(self, field: bool):
        flags, name, descriptor = self.u2(), self.pool[self.u2()], self.pool[self.u2()]
        info: dict[str, Any] = {}
        for _ in range(self.u2()):
            kind, body = self.pool[self.u2()], self.take(int.from_bytes(self.take(4), "big"))
            if kind == "ConstantValue":
                info["value"] = self.pool[int.from_bytes(body[:2], "big")]
            elif kind == "Code":
                stack, local, length = struct.unpack(">HHI", body[:8])
                handlers = int.from_bytes(body[8 + length:10 + length], "big")
                info.update(max_stack=stack, max_locals=local, code_length=length, handlers=handlers)
            elif kind == "Exceptions":
                info["declares_exceptions"] = True
        if field:
            return name, (descriptor, info.get("value"))
        return Method(name, descriptor, flags, **info)


def constant_text(descriptor: str, value: Any) -> str:
    """A ``static final`` field's value as ``javap -v`` writes its ConstantValue."""
    return f"long {value}l" if descriptor == "J" else f"{PRIMITIVES[descriptor]} {value}"


# --- the class ----------------------------------------------------------------------------------

def java_source() -> str:
    rnd = random.Random(94)
    steps = []
    for n in range(40):
        a, b = rnd.randint(3, 97), rnd.randint(3, 97)
        steps.append(f"    private int step{n:02d}(int left, int right) {{\n"
                     f"        int mixed = left * {a} + right;\n        return mixed ^ (mixed >>> {b % 13 + 1});\n"
                     f"    }}\n")
    nested = "seed"
    for k in range(24):
        nested = f"(weight * {k + 3} + ({nested}) * shift)"
    unrolled = "".join(f"        acc = acc * 31 + window[{i}] - (acc >>> {i % 7 + 1});\n" for i in range(150))
    many_locals = "".join(f"        long v{i} = window[{i}] * {i + 2}L;\n" for i in range(30))
    return "".join([
        "import java.io.IOException;\nimport java.nio.file.Files;\nimport java.nio.file.Path;\n\n",
        f"public class {CLASS} {{\n",
        "    static final long RETENTION_MS = 604800013L;\n    static final int MAX_SEGMENTS = 4093;\n",
        "    private long total;\n\n", *steps[:20],
        f"    private long foldNested(long seed, long weight, int shift) {{\n        return {nested};\n    }}\n",
        "    private long sumWindow(long[] window) {\n", many_locals,
        "        return " + " + ".join(f"v{i}" for i in range(30)) + ";\n    }\n",
        "    private long rollChecksum(int[] window) {\n        long acc = 17;\n", unrolled,
        "        return acc;\n    }\n",
        ODD_METHODS, *steps[20:],  # the odd methods in the middle of the class, not at its end
        "}\n"])


def _leader(methods: list[Method], key) -> Method:
    first, second = sorted(methods, key=key, reverse=True)[:2]
    assert key(first) > key(second) * 1.5, (first, second)
    return first


def class_roles(reader: ClassReader) -> dict[str, Any]:
    methods = [m for m in reader.methods if not m.name.startswith("<")]

    def only(test) -> str:
        hits = [m.signature for m in methods if test(m)]
        assert len(hits) == 1, hits
        return hits[0]

    deepest = _leader(methods, lambda m: m.max_stack)
    return {"deepest": deepest.signature, "deepest_stack": f"stack={deepest.max_stack}",
            "most_locals": _leader(methods, lambda m: m.max_locals).signature,
            "most_locals_size": f"locals={max(m.max_locals for m in methods)}",
            "longest": _leader(methods, lambda m: m.code_length).signature,
            "handler": only(lambda m: m.handlers), "synchronized": only(lambda m: m.flags & 0x0020),
            "throws": only(lambda m: m.declares_exceptions),
            "constants": {name: constant_text(*v) for name, v in reader.constants.items() if v[1] is not None}}


def _asks(roles: dict[str, Any]) -> list[Ask]:
    verbose = ("javap_v",)
    asks = [
        Ask("deepest_stack", "extreme", "extreme", (roles["deepest"],), "class reader: the Code with the largest max_stack",
            ("Which method needs the deepest operand stack?", "Which method has the biggest max stack?")),
        Ask("deepest_stack_size", "extreme", "extreme", (roles["deepest_stack"],),
            "class reader: that method's max_stack",
            ("How deep does the operand stack get in the worst method?", "What's the largest max stack of any method?"),
            verbose),
        Ask("most_locals", "extreme", "extreme", (roles["most_locals"],), "class reader: the largest max_locals",
            ("Which method uses the most local variable slots?", "Which method has the most locals?"), verbose),
        Ask("most_locals_size", "extreme", "extreme", (roles["most_locals_size"],),
            "class reader: the largest max_locals",
            ("How many local variable slots does the hungriest method need?", "What's the most locals any method has?"),
            verbose),
        Ask("longest", "extreme", "extreme", (roles["longest"],), "class reader: the largest code_length",
            ("Which method has the longest bytecode?", "What's the biggest method by code size?")),
        Ask("handler", "named", "named_item", (roles["handler"],), "class reader: the one Code with a handler",
            ("Which method catches an exception?", "Does any method have an exception table? Which?")),
        Ask("synchronized", "named", "named_item", (roles["synchronized"],), "class reader: ACC_SYNCHRONIZED",
            ("Is any method synchronized? Which one?", "Which method takes the object's monitor?")),
        Ask("throws", "named", "named_item", (roles["throws"],), "class reader: the one Exceptions attribute",
            ("Which method declares a checked exception?", "Which method has a throws clause?")),
    ]
    for field in ("RETENTION_MS", "MAX_SEGMENTS"):
        asks.append(Ask(f"constant_{field.lower()}", "named", "named_item", (roles["constants"][field],),
                        "class reader: the field's ConstantValue",
                        (f"What's the value of {field}?", f"What is {field} set to in this class?"), verbose))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    (work / f"{CLASS}.java").write_text(java_source())
    run(["javac", "-g", "--release", "17", f"{CLASS}.java"], cwd=work, env=ENV)
    reader = ClassReader((work / f"{CLASS}.class").read_bytes())
    roles = class_roles(reader)
    texts = {"javap_v": run(["javap", "-v", "-p", f"{CLASS}.class"], cwd=work, env=ENV).stdout,
             "javap_c": run(["javap", "-c", "-p", f"{CLASS}.class"], cwd=work, env=ENV).stdout}
    commands = {"javap_v": f"javap -v -p {CLASS}.class", "javap_c": f"javap -c -p {CLASS}.class"}
    outputs = {name: Output({"command": commands[name]}, "text", texts[name]) for name in texts}
    out = asked_cases(SOURCE, outputs, _asks(roles))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
