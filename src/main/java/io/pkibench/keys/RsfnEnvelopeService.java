package io.pkibench.keys;

import io.pkibench.keyserver.protocol.RsfnPackRequest;
import io.pkibench.keyserver.protocol.RsfnPackResponse;
import io.pkibench.keyserver.protocol.RsfnUnpackRequest;
import io.pkibench.keyserver.protocol.RsfnUnpackResponse;
import java.security.GeneralSecurityException;

/**
 * An extra ability of a key source whose keys' holder also packs and unpacks whole RSFN envelopes
 * (the key-server nodes do, so an envelope is one call where the keys live rather than one per
 * signature and key unwrap). A workload asks for the ability, never for where the keys are.
 */
public interface RsfnEnvelopeService {
  RsfnPackResponse pack(RsfnPackRequest request) throws GeneralSecurityException;

  RsfnUnpackResponse unpack(RsfnUnpackRequest request) throws GeneralSecurityException;
}
