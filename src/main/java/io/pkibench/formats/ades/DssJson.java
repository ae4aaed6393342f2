package io.pkibench.formats.ades;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.type.TypeFactory;
import com.fasterxml.jackson.module.jakarta.xmlbind.JakartaXmlBindAnnotationIntrospector;

/**
 * The JSON of DSS's REST API as DSS's demonstration maps it: Jackson reading JAXB annotations
 * (DSS's reports carry them; its DTOs are plain beans). One mapping for both ends, so that the DTOs
 * our clients send are read back exactly as DSS's server reads them.
 */
public final class DssJson {
  private DssJson() {}

  public static ObjectMapper mapper() {
    ObjectMapper mapper = new ObjectMapper();
    mapper.setAnnotationIntrospector(
        new JakartaXmlBindAnnotationIntrospector(TypeFactory.defaultInstance()));
    mapper.configure(DeserializationFeature.WRAP_EXCEPTIONS, false);
    return mapper;
  }
}
