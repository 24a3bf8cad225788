"""README.md: every shell command in its ```sh blocks runs on a built tree (the fast ones here;
`./waf check`, `configure`, `build`, `bench`, `docs` and `apt-get` are what ./waf check itself
is, or need root or the network). `./waf --run "NAME args"` runs build/examples/NAME with a
fresh --out, `./waf compare` tools/compare.py, `./waf plot` tools/plot.py on those outputs;
a path under results/ in a command is the output directory of the run that wrote it. Also: the
README stays a front door (at most 300 lines), and its sample output is what the main example
prints."""

import os
import re
import shlex
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ROOT, ExampleTest, output_dir, run_compare, run_example  # noqa: E402

README = os.path.join(ROOT, "README.md")
# commands not run here: the check itself, the build steps, root and network
SKIP = ("sudo ", "apt-get", "./waf check", "./waf configure", "./waf build", "./waf bench", "./waf docs")


def readme():
    with open(README) as f:
        return f.read()


def shell_commands(text):
    """Every command line of the README's ```sh blocks (comments stripped, continuations joined)."""
    cmds = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S):
        for line in block.replace("\\\n", " ").split("\n"):
            words = shlex.split(line, comments=True)
            if words:
                cmds.append(words)
    return cmds


class ReadmeCommands(ExampleTest):
    def test_the_readme_is_a_front_door(self):
        n = readme().count("\n")
        self.assertLessEqual(n, 300, "README.md has %d lines: move detail into docs/" % n)

    def test_every_command_is_known(self):
        for words in shell_commands(readme()):
            line = " ".join(words)
            self.assertTrue(
                line.startswith(SKIP) or words[:2] in (["./waf", "--run"], ["./waf", "compare"], ["./waf", "plot"]),
                "a README command this test does not know how to run: %s" % line,
            )

    def test_the_commands_run(self):
        outs = {}  # results/NAME (as the README writes it) -> the temp directory of that run

        def local(arg):
            for k, v in sorted(outs.items(), key=lambda kv: -len(kv[0])):
                arg = arg.replace(k, v)
            return arg

        ran = 0
        for words in shell_commands(readme()):
            line = " ".join(words)
            if line.startswith(SKIP):
                continue
            with self.subTest(command=line):
                if words[:2] == ["./waf", "--run"]:
                    argv = shlex.split(words[2])
                    name, args = argv[0], [local(a) for a in argv[1:]]
                    _, out = run_example(name, *args, timeout=300)
                    outs.setdefault("results/" + name, out)
                elif words[:2] == ["./waf", "compare"]:
                    opts = dict(w[2:].split("=", 1) for w in words[2:] if w.startswith("--") and "=" in w)
                    run = words[words.index("--run") + 1] if "--run" in words else opts["run"]
                    out = output_dir("readme-compare")
                    rc, text = run_compare(out, run, opts["schemes"], timeout=600)
                    self.assertEqual(rc, 0, text[-3000:])
                    outs["results/compare"] = out
                elif words[:2] == ["./waf", "plot"]:
                    dirs = [local(d) for w in words[2:] if w.startswith("--dirs=") for d in w[7:].split(",")]
                    p = subprocess.run(
                        [sys.executable, os.path.join(ROOT, "tools", "plot.py")] + dirs,
                        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                    )
                    self.assertEqual(p.returncode, 0, p.stdout[-3000:])
                ran += 1
        self.assertGreaterEqual(ran, 5)

    def test_the_sample_output_is_what_the_main_example_prints(self):
        m = re.search(r"`\./waf --run ldcp-incast`[^\n]*prints:\n\n```\n(.*?)```", readme(), re.S)
        self.assertIsNotNone(m, "the README's sample output of ./waf --run ldcp-incast")
        p, _ = run_example("ldcp-incast")
        got = [re.sub(r"\s+", " ", l).strip() for l in p.stdout.splitlines()]
        for line in m.group(1).splitlines():
            line = re.sub(r"\s+", " ", line).strip()
            if line and line != "...":
                self.assertIn(line, got, "README sample line not in the output:\n%s" % p.stdout)


if __name__ == "__main__":
    unittest.main()
