"""A key-server client written from the .proto files alone, with gRPC's Python implementation (grpcio),
not pkibench's Java stubs: KeyServerPythonClientTest runs it against a node that `serve keyserver` started.

    python grpc_client.py PROTO_DIR PKI_DIR PORT OUT_DIR

Compiles the v1 and v2 contracts with grpcio-tools into OUT_DIR, connects over mutual TLS as the test
PKI's tls-client (its key read from tls-client.p12, the password from keystore.pass: never an argument),
and prints one JSON object: each call's gRPC status code and what came back (signatures and certificates
in base64), each signature verified here with the `cryptography` package against the certificate GetChain
handed out, and the same check over a changed message (which must fail).
"""

import base64
import json
import sys
from pathlib import Path

from grpc_tools import protoc


def compile_contracts(proto_dir, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    include = Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto, shipped with grpcio-tools
    for contract in ("pkibench/keyserver/v1/keyserver.proto", "pkibench/keyserver/v2/keyserver.proto"):
        status = protoc.main(["grpc_tools.protoc", f"-I{proto_dir}", f"-I{include}",
                              f"--python_out={out_dir}", f"--grpc_python_out={out_dir}", contract])
        if status != 0:
            sys.exit(f"grpc_tools.protoc could not compile {contract} (exit {status})")
    sys.path.insert(0, str(out_dir))


def main(proto_dir, pki_dir, port, out_dir):
    compile_contracts(Path(proto_dir), Path(out_dir))
    import grpc
    from cryptography import x509
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import Prehashed
    from cryptography.hazmat.primitives.serialization import pkcs12
    from pkibench.keyserver.v1 import keyserver_pb2 as v1
    from pkibench.keyserver.v1 import keyserver_pb2_grpc as v1_grpc
    from pkibench.keyserver.v2 import keyserver_pb2 as v2
    from pkibench.keyserver.v2 import keyserver_pb2_grpc as v2_grpc

    pki = Path(pki_dir)
    password = (pki / "keystore.pass").read_text().strip().encode()
    key, leaf, chain = pkcs12.load_key_and_certificates((pki / "tls-client.p12").read_bytes(), password)
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    chain_pem = b"".join(c.public_bytes(serialization.Encoding.PEM) for c in [leaf, *chain])
    root_pem = (pki / "root-ca.pem").read_bytes()
    target = f"127.0.0.1:{port}"
    mutual = grpc.ssl_channel_credentials(root_certificates=root_pem, private_key=key_pem,
                                          certificate_chain=chain_pem)
    report = {"grpcio": grpc.__version__}
    deadline_s = 120  # generous: the node shares two loaded cores; a hang still ends

    def code_of(call):
        try:
            return "OK", call()
        except grpc.RpcError as e:
            return e.code().name, e.details()

    message = b"pacs.008 stand-in: a message the key server signs for a Python client"
    changed = bytes([message[0] ^ 1]) + message[1:]

    def verified(certificate_der, scheme, signature):
        """True when `signature` verifies over `message` under the certificate's key, and not over `changed`."""
        public = x509.load_der_x509_certificate(certificate_der).public_key()

        def check(data):
            try:
                if scheme == "ECDSA":
                    public.verify(signature, data, ec.ECDSA(hashes.SHA256()))
                elif scheme == "RSA_PSS":
                    public.verify(signature, data, padding.PSS(padding.MGF1(hashes.SHA256()), 32), hashes.SHA256())
                elif scheme == "RSA_PKCS1_V1_5":
                    public.verify(signature, data, padding.PKCS1v15(), hashes.SHA256())
                elif scheme == "ED25519":
                    assert isinstance(public, ed25519.Ed25519PublicKey), type(public)
                    public.verify(signature, data)
                else:
                    raise ValueError(scheme)
                return True
            except InvalidSignature:
                return False

        return {"verifies": check(message), "changedVerifies": check(changed)}

    with grpc.secure_channel(target, mutual) as channel:
        keys = v1_grpc.KeyServerStub(channel)
        code, answer = code_of(lambda: keys.ListKeys(v1.ListKeysRequest(), timeout=deadline_s))
        report["listKeys"] = {"code": code,
                              "aliases": [k.alias for k in answer.keys] if code == "OK" else answer}

        # v1: each scheme signed, against the certificate the node hands out for the alias
        cases = [("signer-ecdsa-p256-1", "ECDSA", v1.SHA_256, "data"),
                 ("signer-rsa2048-1", "RSA_PSS", v1.SHA_256, "data"),
                 ("signer-rsa2048-2", "RSA_PKCS1_V1_5", v1.SHA_256, "digest"),
                 ("signer-ed25519-1", "ED25519", v1.HASH_ALGORITHM_UNSPECIFIED, "data")]
        chains = {}
        report["sign"] = []
        for alias, scheme, hash_, given in cases:
            code, got = code_of(lambda: keys.GetChain(v1.GetChainRequest(alias=alias), timeout=deadline_s))
            if code != "OK":
                report["sign"].append({"alias": alias, "scheme": scheme, "code": "GetChain " + code, "why": got})
                continue
            chains[alias] = bytes(got.certificates[0])
            request = v1.SignRequest(alias=alias, scheme=v1.SignatureScheme.Value(scheme), hash=hash_)
            if given == "digest":  # hashed by the client, as RSA_PKCS1_V1_5 and ECDSA allow
                digest = hashes.Hash(hashes.SHA256())
                digest.update(message)
                request.digest = digest.finalize()
            else:
                request.data = message
            code, got = code_of(lambda: keys.Sign(request, timeout=deadline_s))
            entry = {"alias": alias, "scheme": scheme, "input": given, "code": code,
                     "certificate": base64.b64encode(chains[alias]).decode()}
            if code == "OK":
                entry["signature"] = base64.b64encode(got.signature).decode()
                entry.update(verified(chains[alias], scheme, got.signature))
            else:
                entry["why"] = got
            report["sign"].append(entry)

        # v1 refusals: each bad request answered with the status the contract names
        def refused(name, request):
            code, why = code_of(lambda: keys.Sign(request, timeout=deadline_s))
            report.setdefault("refusals", {})[name] = {"code": code, "why": why if code != "OK" else ""}

        refused("notGranted", v1.SignRequest(alias="keyserver", scheme=v1.RSA_PKCS1_V1_5, hash=v1.SHA_256,
                                             data=message))
        refused("notHeld", v1.SignRequest(alias="signer-nobody-has", scheme=v1.ECDSA, hash=v1.SHA_256,
                                          data=message))
        refused("schemeTheKeyCannotDo", v1.SignRequest(alias="signer-rsa2048-1", scheme=v1.ED25519,
                                                       data=message))
        refused("largerThanTheNodeAccepts", v1.SignRequest(alias="signer-ed25519-1", scheme=v1.ED25519,
                                                           data=bytes(100 * 1024)))

        # v2: calls several to a message on one stream, answered by id, one of them refused
        stream = v2_grpc.KeyServerStub(channel)

        def sign_call(id_, alias, scheme, hash_=v1.HASH_ALGORITHM_UNSPECIFIED):
            return v2.SignCall(id=id_, request=v1.SignRequest(alias=alias, scheme=v1.SignatureScheme.Value(scheme),
                                                              hash=hash_, data=message))

        def run_stream(batches):
            results, code, why = [], "OK", ""
            try:
                for answer in stream.SignStream(iter(batches), timeout=deadline_s):
                    results.extend(answer.results)
            except grpc.RpcError as e:
                code, why = e.code().name, e.details()
            return results, code, why

        batches = [v2.SignBatch(calls=[sign_call(1, "signer-ecdsa-p256-1", "ECDSA", v1.SHA_256),
                                       sign_call(2, "signer-ed25519-1", "ED25519"),
                                       sign_call(3, "signer-rsa2048-1", "RSA_PSS", v1.SHA_256)]),
                   v2.SignBatch(calls=[sign_call(4, "keyserver", "RSA_PKCS1_V1_5", v1.SHA_256),
                                       sign_call(5, "signer-ecdsa-p256-1", "ECDSA", v1.SHA_256)])]
        schemes = {1: ("signer-ecdsa-p256-1", "ECDSA"), 2: ("signer-ed25519-1", "ED25519"),
                   3: ("signer-rsa2048-1", "RSA_PSS"), 5: ("signer-ecdsa-p256-1", "ECDSA")}
        results, code, why = run_stream(batches)
        answered = []
        for r in results:
            entry = {"id": r.id, "status": r.status, "message": r.message}
            if r.status == 0 and r.id in schemes:
                alias, scheme = schemes[r.id]
                entry.update({"alias": alias, "scheme": scheme,
                              "signature": base64.b64encode(r.signature).decode()})
                entry.update(verified(chains[alias], scheme, r.signature))
            answered.append(entry)
        report["stream"] = {"code": code, "why": why, "results": answered}

        # v2 at its stated limits: 256 calls in one message are signed; 257 end the stream unsigned;
        # a call without a request ends it too
        at_limit = [v2.SignBatch(calls=[sign_call(i, "signer-ed25519-1", "ED25519") for i in range(1, 257)])]
        results, code, why = run_stream(at_limit)
        report["streamAtLimit"] = {"code": code, "why": why, "signed": sum(1 for r in results if r.status == 0),
                                   "ids": sorted({r.id for r in results})}
        past_limit = [v2.SignBatch(calls=[sign_call(i, "signer-ed25519-1", "ED25519") for i in range(1, 258)])]
        results, code, why = run_stream(past_limit)
        report["streamPastLimit"] = {"code": code, "why": why, "answered": len(results)}
        no_request = [v2.SignBatch(calls=[sign_call(1, "signer-ed25519-1", "ED25519"), v2.SignCall(id=2)])]
        results, code, why = run_stream(no_request)
        report["streamCallWithoutRequest"] = {"code": code, "why": why, "answered": len(results)}

    # a client with no certificate of its own: the node's mutual TLS refuses the connection
    anonymous = grpc.ssl_channel_credentials(root_certificates=root_pem)
    with grpc.secure_channel(target, anonymous) as channel:
        code, why = code_of(lambda: v1_grpc.KeyServerStub(channel).ListKeys(v1.ListKeysRequest(), timeout=30))
        report["withoutClientCertificate"] = {"code": code, "why": why if code != "OK" else ""}

    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
