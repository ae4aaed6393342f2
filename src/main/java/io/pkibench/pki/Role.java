package io.pkibench.pki;

/** What a certificate of the test PKI is for; decides its extensions. */
public enum Role {
  ROOT_CA,
  INTERMEDIATE_CA,
  SIGNER,
  TLS_SERVER,
  TLS_CLIENT,
  TSA,
  KEY_SERVER
}
