package io.pkibench.server;

import io.pkibench.server.NoClientRenegotiation.RecordWatch;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.BiFunction;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * The server engine of {@link NoClientRenegotiation}: it looks at what it is given to unwrap before
 * the JDK's engine does. The JDK's engine consumes whole records; the watch follows what it
 * consumed, and a copy of it reads what is waiting.
 */
final class RefusingEngine extends SSLEngine {
  private final SSLEngine delegate;
  private final Runnable onRefused;
  private final RecordWatch consumed = new RecordWatch();
  private boolean refused;

  RefusingEngine(SSLEngine delegate, Runnable onRefused) {
    super(delegate.getPeerHost(), delegate.getPeerPort());
    this.delegate = delegate;
    this.onRefused = onRefused;
  }

  @Override
  public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts, int offset, int length)
      throws SSLException {
    if (refused) throw NoClientRenegotiation.refusal();
    if (!delegate.getUseClientMode() && consumed.copy().renegotiates(src.duplicate())) {
      refused = true;
      onRefused.run();
      throw NoClientRenegotiation.refusal();
    }
    int before = src.position();
    SSLEngineResult result = delegate.unwrap(src, dsts, offset, length);
    ByteBuffer read = src.duplicate();
    read.limit(src.position()).position(before);
    consumed.renegotiates(read);
    return result;
  }

  @Override
  public SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length, ByteBuffer dst)
      throws SSLException {
    return delegate.wrap(srcs, offset, length, dst);
  }

  @Override
  public Runnable getDelegatedTask() {
    return delegate.getDelegatedTask();
  }

  @Override
  public void closeInbound() throws SSLException {
    delegate.closeInbound();
  }

  @Override
  public boolean isInboundDone() {
    return delegate.isInboundDone();
  }

  @Override
  public void closeOutbound() {
    delegate.closeOutbound();
  }

  @Override
  public boolean isOutboundDone() {
    return delegate.isOutboundDone();
  }

  @Override
  public String[] getSupportedCipherSuites() {
    return delegate.getSupportedCipherSuites();
  }

  @Override
  public String[] getEnabledCipherSuites() {
    return delegate.getEnabledCipherSuites();
  }

  @Override
  public void setEnabledCipherSuites(String[] suites) {
    delegate.setEnabledCipherSuites(suites);
  }

  @Override
  public String[] getSupportedProtocols() {
    return delegate.getSupportedProtocols();
  }

  @Override
  public String[] getEnabledProtocols() {
    return delegate.getEnabledProtocols();
  }

  @Override
  public void setEnabledProtocols(String[] protocols) {
    delegate.setEnabledProtocols(protocols);
  }

  @Override
  public SSLSession getSession() {
    return delegate.getSession();
  }

  @Override
  public SSLSession getHandshakeSession() {
    return delegate.getHandshakeSession();
  }

  @Override
  public void beginHandshake() throws SSLException {
    delegate.beginHandshake();
  }

  @Override
  public SSLEngineResult.HandshakeStatus getHandshakeStatus() {
    return delegate.getHandshakeStatus();
  }

  @Override
  public void setUseClientMode(boolean mode) {
    delegate.setUseClientMode(mode);
  }

  @Override
  public boolean getUseClientMode() {
    return delegate.getUseClientMode();
  }

  @Override
  public void setNeedClientAuth(boolean need) {
    delegate.setNeedClientAuth(need);
  }

  @Override
  public boolean getNeedClientAuth() {
    return delegate.getNeedClientAuth();
  }

  @Override
  public void setWantClientAuth(boolean want) {
    delegate.setWantClientAuth(want);
  }

  @Override
  public boolean getWantClientAuth() {
    return delegate.getWantClientAuth();
  }

  @Override
  public void setEnableSessionCreation(boolean flag) {
    delegate.setEnableSessionCreation(flag);
  }

  @Override
  public boolean getEnableSessionCreation() {
    return delegate.getEnableSessionCreation();
  }

  @Override
  public SSLParameters getSSLParameters() {
    return delegate.getSSLParameters();
  }

  @Override
  public void setSSLParameters(SSLParameters params) {
    delegate.setSSLParameters(params);
  }

  @Override
  public String getApplicationProtocol() {
    return delegate.getApplicationProtocol();
  }

  @Override
  public String getHandshakeApplicationProtocol() {
    return delegate.getHandshakeApplicationProtocol();
  }

  @Override
  public void setHandshakeApplicationProtocolSelector(
      BiFunction<SSLEngine, List<String>, String> selector) {
    delegate.setHandshakeApplicationProtocolSelector(
        selector == null ? null : (engine, protocols) -> selector.apply(this, protocols));
  }

  @Override
  public BiFunction<SSLEngine, List<String>, String> getHandshakeApplicationProtocolSelector() {
    return delegate.getHandshakeApplicationProtocolSelector();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
