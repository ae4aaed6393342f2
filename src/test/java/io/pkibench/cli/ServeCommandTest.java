package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} without a service: refused (exit 2) naming every registered service, so that one
 * added with its registration line is offered too.
 */
class ServeCommandTest {
  @TempDir Path dir;

  @Test
  void serveAlone_exit2NamingEveryRegisteredService() {
    StringWriter out = new StringWriter(), err = new StringWriter();
    assertEquals(2, InThisJvm.run(dir, out, err, "serve"), err.toString());
    assertTrue(
        err.toString()
            .contains(
                "name a service: serve signer, serve tsa, serve crl, serve tlsecho, serve nginx,"
                    + " serve keyserver, serve pec, serve dss, serve openbao or serve pebble"),
        err.toString());
  }
}
