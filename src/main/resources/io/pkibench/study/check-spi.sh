#!/usr/bin/env bash
# Checks an SPI-signed pacs.008 (pkibench's spi-sign) with code pkibench did not write. Usage: check-spi.sh MESSAGE CERT.pem
#  1. xmlsec1 verifies the KeyInfo reference and the header reference (URI="", the AppHdr taken as a document of its
#     own); the reference without a URI it cannot resolve as the SPI does, so it must fail on that one alone.
#  2. Python's standard library canonicalises the Document element; its SHA-256 must be that reference's DigestValue.
#  3. Python canonicalises SignedInfo and openssl verifies the SignatureValue over it with the certificate's key.
# (Python's canonicalize is C14N 2.0; for these elements, each declaring the one namespace it uses, its output is
# the exclusive C14N 1.0 the signature names.)
set -euo pipefail
msg="$1"; cert="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
python3 - "$msg" "$tmp" <<'PY'
import base64, hashlib, re, sys, xml.etree.ElementTree as ET
msg, tmp = sys.argv[1], sys.argv[2]
text = open(msg, encoding="utf-8").read()
header = text[text.index("<AppHdr"):text.index("</AppHdr>") + len("</AppHdr>")]
open(tmp + "/header.xml", "w", encoding="utf-8").write('<?xml version="1.0" encoding="UTF-8"?>' + header)
document = text[text.index("<Document"):text.index("</Document>") + len("</Document>")]
references = [(m.group(2), m.group(3)) for m in re.finditer(r'<ds:Reference(\s+URI="([^"]*)")?>.*?<ds:DigestValue>([^<]+)</ds:DigestValue>', header, re.S)]
without_uri = [digest for uri, digest in references if uri is None]
if len(references) != 3 or len(without_uri) != 1:
    sys.exit("expected three references, one without a URI; found %r" % references)
computed = base64.b64encode(hashlib.sha256(ET.canonicalize(document).encode("utf-8")).digest()).decode()
if computed != without_uri[0]:
    sys.exit("the Document's digest is %s, the signature says %s" % (computed, without_uri[0]))
signed_info = re.search(r"<ds:SignedInfo>.*?</ds:SignedInfo>", header, re.S).group(0)
signed_info = signed_info.replace("<ds:SignedInfo>", '<ds:SignedInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">', 1)
open(tmp + "/signedinfo.c14n", "wb").write(ET.canonicalize(signed_info).encode("utf-8"))
value = ET.fromstring(header).find(".//{http://www.w3.org/2000/09/xmldsig#}SignatureValue").text  # the parser decodes &#13;
open(tmp + "/signature.bin", "wb").write(base64.b64decode("".join(value.split()), validate=True))
PY
report="$(xmlsec1 --verify --pubkey-cert-pem "$cert" --id-attr:Id KeyInfo --store-references --print-debug "$tmp/header.xml" 2>&1 || true)"
for uri in '"#key-info"' '""'; do
  grep -B1 -F "== URI: $uri" <<< "$report" | grep -q "Status: succeeded" || { echo "xmlsec1: the reference $uri does not verify"; exit 1; }
done
openssl x509 -in "$cert" -noout -pubkey > "$tmp/key.pem"
openssl dgst -sha256 -verify "$tmp/key.pem" -signature "$tmp/signature.bin" "$tmp/signedinfo.c14n" >/dev/null \
  || { echo "openssl: the SignatureValue does not verify over the canonical SignedInfo"; exit 1; }
echo "KeyInfo and header references (xmlsec1), Document digest (Python C14N), signature value (openssl): verified"
