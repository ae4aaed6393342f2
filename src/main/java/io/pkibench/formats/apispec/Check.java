package io.pkibench.formats.apispec;

import io.pkibench.formats.ades.CertificateTrust;
import io.pkibench.formats.ades.PadesVerifier;
import io.pkibench.formats.ades.XadesVerifier;
import io.pkibench.keys.PemKeys;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cms.CMSException;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.util.Selector;

/**
 * One check of a spec's {@code verify:} list, made after the last step over what the operation sent
 * and captured; it throws saying what did not hold (never a value), so an operation whose check
 * fails counts as failed with that reason.
 */
public sealed interface Check
    permits Check.SignatureCheck, Check.CmsCheck, Check.X509Check, Check.AdesCheck {
  /** BouncyCastle verifies every check: independent of whichever provider the service used. */
  BouncyCastleProvider BC = new BouncyCastleProvider();

  int line();

  /** The kind and line, as a failure names the check. */
  String name();

  void verify(Template.Values values) throws GeneralSecurityException;

  /**
   * {@code signature:} a raw signature {@code value} over {@code over} with {@code algorithm} (a
   * JCA name as BouncyCastle knows it) under {@code key}, a public key or certificate file.
   */
  record SignatureCheck(int line, Template value, Template over, String algorithm, PublicKey key)
      implements Check {
    @Override
    public String name() {
      return "check signature (line " + line + ")";
    }

    @Override
    public void verify(Template.Values values) throws GeneralSecurityException {
      Signature verifier = Signature.getInstance(algorithm, BC);
      verifier.initVerify(key);
      verifier.update(over.render(values));
      boolean valid;
      try {
        valid = verifier.verify(value.render(values));
      } catch (SignatureException malformed) {
        throw new SignatureException(
            "the " + algorithm + " signature is malformed (" + malformed.getMessage() + ")");
      }
      if (!valid)
        throw new SignatureException(
            "the "
                + algorithm
                + " signature does not verify over "
                + over.text()
                + " with the key given");
    }
  }

  /**
   * {@code cms:} a CMS SignedData whose every signer verifies over {@code over} (detached), or
   * whose content is {@code over} (enveloping), with a certificate chaining to {@code trust}.
   */
  record CmsCheck(int line, Template value, Template over, CertificateTrust trust)
      implements Check {
    @Override
    public String name() {
      return "check cms (line " + line + ")";
    }

    @Override
    public void verify(Template.Values values) throws GeneralSecurityException {
      byte[] sent = over.render(values);
      CMSSignedData cms;
      try {
        cms = new CMSSignedData(value.render(values));
        if (cms.getSignedContent() == null)
          cms = new CMSSignedData(new CMSProcessableByteArray(sent), value.render(values));
        else if (!Arrays.equals((byte[]) cms.getSignedContent().getContent(), sent))
          throw new SignatureException(
              "the CMS encapsulates other bytes than "
                  + over.text()
                  + " ("
                  + ((byte[]) cms.getSignedContent().getContent()).length
                  + " bytes, "
                  + sent.length
                  + " sent)");
      } catch (CMSException e) {
        throw new SignatureException("not a CMS SignedData (" + e.getMessage() + ")");
      }
      var signers = cms.getSignerInfos().getSigners();
      if (signers.isEmpty()) throw new SignatureException("the CMS has no signer");
      List<X509Certificate> carried = new ArrayList<>();
      JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
      for (X509CertificateHolder h : cms.getCertificates().getMatches(null))
        carried.add(converter.getCertificate(h));
      for (SignerInformation signer : signers) {
        @SuppressWarnings("unchecked")
        var matches =
            cms.getCertificates().getMatches((Selector<X509CertificateHolder>) signer.getSID());
        if (matches.isEmpty())
          throw new SignatureException("the CMS does not carry its signer's certificate");
        X509CertificateHolder holder = matches.iterator().next();
        try {
          if (!signer.verify(
              new JcaSimpleSignerInfoVerifierBuilder().setProvider(BC).build(holder)))
            throw new SignatureException("the CMS signature does not verify over " + over.text());
        } catch (CMSException | OperatorCreationException | CertificateException e) {
          throw new SignatureException(
              "the CMS signature does not verify over "
                  + over.text()
                  + " ("
                  + e.getMessage()
                  + ")");
        }
        trust.check(converter.getCertificate(holder), carried, new Date());
      }
    }
  }

  /**
   * {@code x509:} an issued certificate (PEM or DER, a chain leaf first) chaining to {@code trust}
   * and, when the operation sent {@code ${csr}}, certifying that request's key.
   */
  record X509Check(int line, Template value, CertificateTrust trust, boolean ofCsr)
      implements Check {
    /** The variable holding the DER SubjectPublicKeyInfo of the operation's CSR key. */
    public static final String CSR_KEY = "csr.key";

    @Override
    public String name() {
      return "check x509 (line " + line + ")";
    }

    @Override
    public void verify(Template.Values values) throws GeneralSecurityException {
      List<X509Certificate> chain;
      try {
        chain = PemKeys.certificates(value.render(values));
      } catch (IllegalArgumentException e) {
        throw new CertificateException(value.text() + " " + e.getMessage());
      }
      X509Certificate issued = chain.get(0);
      trust.check(issued, chain.subList(1, chain.size()), new Date());
      issued.checkValidity();
      if (ofCsr
          && !MessageDigest.isEqual(issued.getPublicKey().getEncoded(), values.value(CSR_KEY)))
        throw new CertificateException("the certificate issued does not carry the CSR's key");
    }
  }

  /**
   * {@code pades:} / {@code xades:} a signed PDF or XML ({@code value}) whose one signature covers
   * {@code over}, the document sent, and nothing else (the PAdES and XAdES verifiers of the
   * in-process workloads): verifying under {@code key} (a public key or certificate), or under the
   * certificate the signature carries (PAdES: in its CMS; XAdES: in its KeyInfo), chained to {@code
   * trust}. One of the two is set.
   */
  record AdesCheck(
      int line, String kind, Template value, Template over, PublicKey key, CertificateTrust trust)
      implements Check {
    @Override
    public String name() {
      return "check " + kind + " (line " + line + ")";
    }

    @Override
    public void verify(Template.Values values) throws GeneralSecurityException {
      byte[] signed = value.render(values);
      byte[] sent = over.render(values);
      try {
        if (kind.equals("xades") && key != null) XadesVerifier.check(signed, sent, key);
        else if (kind.equals("xades")) XadesVerifier.check(signed, sent, trust);
        else if (key != null) PadesVerifier.check(signed, sent, key);
        else PadesVerifier.check(signed, sent, trust);
      } catch (GeneralSecurityException e) {
        throw e;
      } catch (Exception e) {
        // PDFBox's and the XML parser's complaints: the answer is no signed document at all
        throw new SignatureException(
            "not a signed " + (kind.equals("xades") ? "XML" : "PDF") + " (" + e.getMessage() + ")");
      }
    }
  }
}
