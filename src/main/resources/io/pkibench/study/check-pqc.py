#!/usr/bin/env python3
"""Checks pkibench's post-quantum samples with code pkibench did not write: dilithium-py (FIPS 204)
and kyber-py (FIPS 203), pure-Python implementations held to NIST's ACVP vectors by their own tests.
  python3 check-pqc.py ml-dsa-65   # ml-dsa-65.pk/.msg/.sig: the signature verifies, a flipped byte does not
  python3 check-pqc.py ml-kem-768  # ml-kem-768.dk/.ct/.ss: decapsulation gives .ss; .ek matches the one inside .dk
Needs: pip install dilithium-py kyber-py. Exits 0 when the sample checks, 1 when it does not, 2 when it cannot run."""
import sys

def read(name):
    with open(name, "rb") as f:
        return f.read()

def main(base):
    try:
        if base.startswith("ml-dsa-"):
            from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
            scheme = {"ml-dsa-44": ML_DSA_44, "ml-dsa-65": ML_DSA_65, "ml-dsa-87": ML_DSA_87}[base]
        else:
            from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
            scheme = {"ml-kem-512": ML_KEM_512, "ml-kem-768": ML_KEM_768, "ml-kem-1024": ML_KEM_1024}[base]
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
