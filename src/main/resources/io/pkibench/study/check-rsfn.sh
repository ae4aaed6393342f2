#!/usr/bin/env bash
# Checks an RSFN protocol 3 envelope (pkibench rsfn) with code pkibench did not write. Usage:
#   check-rsfn.sh ENVELOPE SENDER.pem [RECIPIENT.pem]
#  1. the header's fixed fields: C01 = 588 (0x024C), C02 = 3, C03 = 0, C08 = RSA-2048, C09 = SHA-256;
#  2. C13 (and C11 with a recipient) = the certificate's serial as openssl prints it, left-padded to 32 hex digits;
#  3. a payload that is not encrypted (C04 3, 6): openssl verifies C15 (SHA256withRSA) over it with the sender's key.
#     An encrypted payload needs the recipient's private key to reach the plaintext; the test suite checks that path.
set -euo pipefail
env="$1"; sender="$2"; recipient="${3:-}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
byte() { od -An -tu1 -j "$1" -N 1 "$env" | tr -d ' '; }
ascii() { dd if="$env" bs=1 skip="$1" count=32 status=none; }
serial() { s="$(openssl x509 -in "$1" -noout -serial | sed 's/^serial=//')"; printf '%032s' "$s" | tr ' ' 0; }
fail() { echo "$*" >&2; exit 1; }
[ "$(byte 0)" = 2 ] && [ "$(byte 1)" = 76 ] || fail "C01 is not 588"
[ "$(byte 2)" = 3 ] || fail "C02 is $(byte 2), not 3"
[ "$(byte 3)" = 0 ] || fail "C03 carries error $(byte 3)"
[ "$(byte 8)" = 2 ] || fail "C08 is not RSA-2048"
[ "$(byte 9)" = 3 ] || fail "C09 is not SHA-256"
[ "$(ascii 44)" = "$(serial "$sender")" ] || fail "C13 $(ascii 44) is not the sender's serial $(serial "$sender")"
if [ -n "$recipient" ]; then
  [ "$(ascii 11)" = "$(serial "$recipient")" ] || fail "C11 $(ascii 11) is not the recipient's serial $(serial "$recipient")"
fi
treatment="$(byte 4)"
if [ "$treatment" = 3 ] || [ "$treatment" = 6 ] || [ "$treatment" = 2 ]; then
  dd if="$env" bs=1 skip=332 count=256 status=none > "$tmp/c15"
  tail -c +589 "$env" > "$tmp/payload"
  openssl x509 -in "$sender" -pubkey -noout > "$tmp/pub.pem"
  openssl dgst -sha256 -verify "$tmp/pub.pem" -signature "$tmp/c15" "$tmp/payload" >/dev/null || fail "C15 does not verify over the payload"
fi
