// tlsgroup: an independent TLS 1.3 client (Go's crypto/tls) for pkibench's tests. It connects to
// ADDR trusting the root in ROOT_PEM, offering only the groups named (X25519MLKEM768, x25519,
// secp256r1), and prints the group the handshake negotiated, from ConnectionState.CurveID, then what
// else could make one handshake cheaper than another: the version, whether the server asked for a
// HelloRetryRequest, whether the session was resumed, the suite, and the server's certificate chain
// (count and SHA-256 of the leaf).
// Exit 1 with the error on stderr when the handshake fails.
package main

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: tlsgroup ADDR ROOT_PEM GROUP[,GROUP...]")
		os.Exit(2)
	}
	pem, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		fmt.Fprintln(os.Stderr, "no certificate in", os.Args[2])
		os.Exit(2)
	}
	names := map[string]tls.CurveID{"X25519MLKEM768": tls.X25519MLKEM768, "SecP256r1MLKEM768": tls.SecP256r1MLKEM768, "x25519": tls.X25519, "secp256r1": tls.CurveP256}
	var groups []tls.CurveID
	for _, g := range strings.Split(os.Args[3], ",") {
		id, ok := names[g]
		if !ok {
			fmt.Fprintln(os.Stderr, "unknown group", g)
			os.Exit(2)
		}
		groups = append(groups, id)
	}
	conn, err := tls.Dial("tcp", os.Args[1], &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS13, CurvePreferences: groups, ServerName: "127.0.0.1"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer conn.Close()
	state := conn.ConnectionState()
	fmt.Println(state.CurveID)
	leaf := sha256.Sum256(state.PeerCertificates[0].Raw)
	fmt.Printf("version=%s hrr=%t resumed=%t suite=%s certs=%d leaf=%x\n", tls.VersionName(state.Version), state.HelloRetryRequest,
		state.DidResume, tls.CipherSuiteName(state.CipherSuite), len(state.PeerCertificates), leaf[:8])
}
