"""Reads `jfr print --events jdk.ExecutionSample` of the PEC providers on stdin and prints the share of CPU samples
under each stage of a message (a sample counts for every stage its stack passes through, so the shares overlap),
and the pkibench frames with the most samples under them (inclusive)."""
import collections
import re
import sys

STAGES = [  # (label, a frame's prefix that marks it)
    ("RSA sign (JCA Signature.sign)", "java.security.Signature.sign("),
    ("signature verify (JCA Signature.verify)", "java.security.Signature.verify("),
    ("CMS/S-MIME building or parsing (BouncyCastle)", "org.bouncycastle."),
    ("MIME (Jakarta Mail)", "jakarta.mail."),
    ("XML (daticert: JAXP)", "javax.xml."),
    ("certificate path checks", "java.security.cert.CertPathValidator"),
    ("TLS (JSSE)", "sun.security.ssl."),
    ("SMTP server (SubEthaSMTP)", "org.subethamail."),
    ("SMTP client (relay)", "io.pkibench.formats.pec.SmtpClient."),
    ("the provider's part (PecProvider)", "io.pkibench.formats.pec.PecProvider."),
    ("spool journal", "io.pkibench.server.pec.SpoolJournal."),
    ("Maildir delivery", "io.pkibench.server.pec.Maildir."),
    ("message digests", "sun.security.provider.DigestBase"),
]
samples = 0
stage = collections.Counter()
ours = collections.Counter()
frames = []


def flush():
    global samples, frames
    if not frames:
        return
    samples += 1
    for label, prefix in STAGES:
        if any(f.startswith(prefix) for f in frames):
            stage[label] += 1
    for m in {f.split("(")[0] for f in frames if f.startswith("io.pkibench.")}:
        ours[m] += 1
    frames = []


in_stack = False
for line in sys.stdin:
    t = line.strip()
    if t.startswith("jdk.ExecutionSample"):
        flush()
    elif t.startswith("stackTrace = ["):
        in_stack = True
    elif in_stack and t.startswith("]"):
        in_stack = False
    elif in_stack and t and not t.startswith("..."):
        frames.append(re.sub(r"\s+line:.*$", "", t))
flush()
if samples == 0:
    print("no CPU samples in the recordings")
    sys.exit(0)
print(f"\nboth providers: {samples} CPU samples; share under each stage (a sample counts for every stage its stack passes through)")
for label, _ in STAGES:
    print(f"  {100 * stage[label] / samples:5.1f}%  {label}")
print("pkibench frames with the most samples under them (inclusive):")
for m, n in ours.most_common(15):
    print(f"  {100 * n / samples:5.1f}%  {m}")
