package io.pkibench.formats.ades;

import eu.europa.esig.dss.xml.common.DocumentBuilderFactoryBuilder;
import eu.europa.esig.dss.xml.common.XmlDefinerUtils;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.validation.Schema;
import org.xml.sax.ErrorHandler;
import org.xml.sax.SAXParseException;

/**
 * DSS parses a client's XML with document builders that have no error handler, so the JDK's default
 * one writes {@code [Fatal Error] :1:1: Content is not allowed in prolog.} to the service's stderr
 * for every malformed document a client chooses to send. Installed once per process, DSS's builders
 * get a handler that throws on a fatal error (DSS then refuses the document as it would anyway),
 * goes on past the rest as the default does, and writes nothing. The factory DSS builds, with its
 * security settings, is kept and wrapped; only its builders' handler changes.
 */
final class QuietXmlParsers {
  private static final ErrorHandler QUIET =
      new ErrorHandler() {
        @Override
        public void warning(SAXParseException e) {
          // a warning is not a failure, and not the client's business to print
        }

        @Override
        public void error(SAXParseException e) {
          // recoverable: the JDK's default handler prints it and parsing goes on; so does this one,
          // without the print
        }

        @Override
        public void fatalError(SAXParseException e) throws SAXParseException {
          throw e;
        }
      };

  private QuietXmlParsers() {}

  /** Idempotent; the first call in a process installs it. */
  static void install() {
    Holder.INSTALLED.hashCode();
  }

  private static final class Holder {
    static final Object INSTALLED = installOnce();

    private static Object installOnce() {
      XmlDefinerUtils.getInstance().setDocumentBuilderFactoryBuilder(new Builder());
      return Boolean.TRUE;
    }
  }

  private static final class Builder extends DocumentBuilderFactoryBuilder {
    private final DocumentBuilderFactoryBuilder secure =
        DocumentBuilderFactoryBuilder.getSecureDocumentBuilderFactoryBuilder();

    @Override
    public DocumentBuilderFactory build() {
      return new Quiet(secure.build());
    }
  }

  /** DSS's secure factory, its builders given {@link #QUIET}. */
  private static final class Quiet extends DocumentBuilderFactory {
    private final DocumentBuilderFactory factory;

    Quiet(DocumentBuilderFactory factory) {
      this.factory = factory;
    }

    @Override
    public DocumentBuilder newDocumentBuilder() throws ParserConfigurationException {
      DocumentBuilder builder = factory.newDocumentBuilder();
      builder.setErrorHandler(QUIET);
      return builder;
    }

    @Override
    public void setAttribute(String name, Object value) {
      factory.setAttribute(name, value);
    }

    @Override
    public Object getAttribute(String name) {
      return factory.getAttribute(name);
    }

    @Override
    public void setFeature(String name, boolean value) throws ParserConfigurationException {
      factory.setFeature(name, value);
    }

    @Override
    public boolean getFeature(String name) throws ParserConfigurationException {
      return factory.getFeature(name);
    }

    @Override
    public void setNamespaceAware(boolean aware) {
      factory.setNamespaceAware(aware);
    }

    @Override
    public boolean isNamespaceAware() {
      return factory.isNamespaceAware();
    }

    @Override
    public void setValidating(boolean validating) {
      factory.setValidating(validating);
    }

    @Override
    public boolean isValidating() {
      return factory.isValidating();
    }

    @Override
    public void setIgnoringElementContentWhitespace(boolean whitespace) {
      factory.setIgnoringElementContentWhitespace(whitespace);
    }

    @Override
    public boolean isIgnoringElementContentWhitespace() {
      return factory.isIgnoringElementContentWhitespace();
    }

    @Override
    public void setExpandEntityReferences(boolean expand) {
      factory.setExpandEntityReferences(expand);
    }

    @Override
    public boolean isExpandEntityReferences() {
      return factory.isExpandEntityReferences();
    }

    @Override
    public void setIgnoringComments(boolean ignore) {
      factory.setIgnoringComments(ignore);
    }

    @Override
    public boolean isIgnoringComments() {
      return factory.isIgnoringComments();
    }

    @Override
    public void setCoalescing(boolean coalescing) {
      factory.setCoalescing(coalescing);
    }

    @Override
    public boolean isCoalescing() {
      return factory.isCoalescing();
    }

    @Override
    public void setSchema(Schema schema) {
      factory.setSchema(schema);
    }

    @Override
    public Schema getSchema() {
      return factory.getSchema();
    }

    @Override
    public void setXIncludeAware(boolean aware) {
      factory.setXIncludeAware(aware);
    }

    @Override
    public boolean isXIncludeAware() {
      return factory.isXIncludeAware();
    }
  }
}
