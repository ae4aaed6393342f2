#!/usr/bin/env python3
"""Checks pkibench's post-quantum samples with code pkibench did not write: dilithium-py (FIPS 204)
and kyber-py (FIPS 203), pure-Python implementations held to NIST's ACVP vectors by their own tests.
  python3 check-pqc.py ml-dsa-65   # ml-dsa-65.pk/.msg/.sig: the signature verifies, a flipped byte does not
  python3 check-pqc.py ml-dsa-65-bc   # the same for the signature BouncyCastle made (-accp: Amazon Corretto Crypto Provider)
  python3 check-pqc.py ml-kem-768  # ml-kem-768.dk/.ct/.ss: decapsulation gives .ss; .ek matches the one inside .dk
  python3 check-pqc.py cms-ml-dsa-65  # cms-ml-dsa-65.p7s: RFC 9882 SignedData, read with a DER reader of its own, the content's
                                      # SHA-512 in messageDigest, the signed attributes' ML-DSA-65 signature under the certificate's key
Needs: pip install dilithium-py kyber-py. Exits 0 when the sample checks, 1 when it does not, 2 when it cannot run."""
import hashlib
import sys

def read(name):
    with open(name, "rb") as f:
        return f.read()

def der(data, at=0):
    """One DER element at offset at: (tag, start of its contents, end of its contents)."""
    tag, n = data[at], data[at + 1]
    at += 2
    if n & 0x80:
        count = n & 0x7F
        n = int.from_bytes(data[at:at + count], "big")
        at += count
    return tag, at, at + n

def children(data, start, end):
    out = []
    while start < end:
        tag, s, e = der(data, start)
        out.append((tag, s, e, start))
        start = e
    return out

def oid(data, s, e):
    body = data[s:e]
    parts = [body[0] // 40, body[0] % 40]
    value = 0
    for b in body[1:]:
        value = (value << 7) | (b & 0x7F)
        if not b & 0x80:
            parts.append(value)
            value = 0
    return ".".join(map(str, parts))

ID_ML_DSA_65 = "2.16.840.1.101.3.4.3.18"
SHA_512 = "2.16.840.1.101.3.4.2.3"
MESSAGE_DIGEST = "1.2.840.113549.1.9.4"

def check_cms(base):
    from dilithium_py.ml_dsa import ML_DSA_65
    p7 = read(base + ".p7s")
    _, s, e = der(p7)                                   # ContentInfo
    content_type, explicit = children(p7, s, e)
    _, s, e = der(p7, explicit[1])                      # [0] EXPLICIT SignedData
    fields = children(p7, s, e)
    encap = children(p7, fields[2][1], fields[2][2])    # EncapsulatedContentInfo: eContentType, [0] eContent
    _, s, e = der(p7, encap[1][1])
    content = p7[s:e]
    certificates = next(f for f in fields if f[0] == 0xA0)
    cert = children(p7, certificates[1], certificates[2])[0]
    tbs = children(p7, cert[1], cert[2])[0]
    spki = [f for f in children(p7, tbs[1], tbs[2]) if f[0] == 0x30][4]   # the SEQUENCEs: signature, issuer, validity, subject, spki
    key_bits = children(p7, spki[1], spki[2])[1]
    pk = p7[key_bits[1] + 1:key_bits[2]]                # BIT STRING: no unused bits
    signer_infos = fields[-1]
    signer = children(p7, signer_infos[1], signer_infos[2])[0]
    parts = children(p7, signer[1], signer[2])          # version, sid, digestAlgorithm, [0] signedAttrs, signatureAlgorithm, signature
    digest_alg = oid(p7, *children(p7, parts[2][1], parts[2][2])[0][1:3])
    attrs = parts[3]
    signature_alg = oid(p7, *children(p7, parts[4][1], parts[4][2])[0][1:3])
    signature = p7[parts[5][1]:parts[5][2]]
    digest = None
    for attr in children(p7, attrs[1], attrs[2]):
        kind, values = children(p7, attr[1], attr[2])
        if oid(p7, kind[1], kind[2]) == MESSAGE_DIGEST:
            _, s, e = der(p7, values[1])
            digest = p7[s:e]
    signed = b"\x31" + p7[attrs[3] + 1:attrs[2]]      # the signed attributes as a SET OF, as they were signed (RFC 5652 5.4)
    problems = []
    if signature_alg != ID_ML_DSA_65: problems.append("signature algorithm " + signature_alg + ", not id-ml-dsa-65")
    if digest_alg != SHA_512: problems.append("digest " + digest_alg + ", not SHA-512 (RFC 9882)")
    if digest != hashlib.sha512(content).digest(): problems.append("messageDigest is not the content's SHA-512")
    ok = ML_DSA_65.verify(pk, signed, signature)
    tampered = bytearray(signature)
    tampered[len(tampered) // 2] ^= 1
    refused = not ML_DSA_65.verify(pk, signed, bytes(tampered))
    print(f"{base}: {len(content)}-byte content; signature {'verifies' if ok else 'DOES NOT verify'}; flipped byte "
          f"{'refused' if refused else 'ACCEPTED'}" + "".join("; " + p for p in problems))
    return 0 if ok and refused and not problems else 1

def main(base):
    try:
        if base.startswith("cms-"):
            return check_cms(base)
        # the parameter set is the name's first three parts: ml-dsa-65-bc is ML-DSA-65 signed by BouncyCastle
        parameter_set = "-".join(base.split("-")[:3])
        if base.startswith("ml-dsa-"):
            from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
            scheme = {"ml-dsa-44": ML_DSA_44, "ml-dsa-65": ML_DSA_65, "ml-dsa-87": ML_DSA_87}[parameter_set]
        else:
            from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
            scheme = {"ml-kem-512": ML_KEM_512, "ml-kem-768": ML_KEM_768, "ml-kem-1024": ML_KEM_1024}[parameter_set]
    except ImportError as e:
        print(base + ": cannot check: " + str(e) + "; run: pip install dilithium-py kyber-py")
        return 2
    except KeyError:
        print("unknown parameter set " + base)
        return 2
    if base.startswith("ml-dsa-"):
        pk, msg, sig = read(base + ".pk"), read(base + ".msg"), read(base + ".sig")
        ok = scheme.verify(pk, msg, sig)  # FIPS 204 Algorithm 3, pure, empty context
        tampered = bytearray(sig)
        tampered[len(tampered) // 2] ^= 1
        refused = not scheme.verify(pk, msg, bytes(tampered))
        print(f"{base}: signature {'verifies' if ok else 'DOES NOT verify'}; flipped byte {'refused' if refused else 'ACCEPTED'}")
        return 0 if ok and refused else 1
    ek, dk, ct, ss = read(base + ".ek"), read(base + ".dk"), read(base + ".ct"), read(base + ".ss")
    got = scheme.decaps(dk, ct)
    # FIPS 203: dk = dk_PKE || ek || H(ek) || z, so the ek inside dk is the one published
    k = len(ek)
    ek_inside = dk[len(dk) - 64 - k:len(dk) - 64]
    ok = got == ss and ek_inside == ek
    print(f"{base}: decapsulation {'gives' if got == ss else 'DOES NOT give'} the shared secret; ek {'matches' if ek_inside == ek else 'DIFFERS from'} dk's")
    return 0 if ok else 1

if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
