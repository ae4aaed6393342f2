package io.pkibench.server.pec;

import io.pkibench.formats.pec.DocumentKind;
import io.pkibench.formats.pec.Outgoing;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a provider's result goes: our own users' mailboxes, ourselves again (an envelope for our
 * own users, taken as incoming mail), or a peer provider by domain. The spool's journal holds it as
 * {@link #spoolName()}, the words it has always written.
 */
sealed interface Route {
  /** Our users' Maildirs. */
  record Mailbox() implements Route {
    @Override
    public String spoolName() {
      return "mailbox";
    }
  }

  /** Our own spool, as an incoming job: a transport envelope for our own users. */
  record Self() implements Route {
    @Override
    public String spoolName() {
      return "self";
    }
  }

  /** The peer provider of {@code domain}, over SMTP. */
  record Relay(String domain) implements Route {
    @Override
    public String spoolName() {
      return RELAY_PREFIX + domain;
    }
  }

  String RELAY_PREFIX = "relay:";

  Route MAILBOX = new Mailbox();
  Route SELF = new Self();

  /** The word the spool's journal holds for this route. */
  String spoolName();

  /** The route the journal names {@code name}: {@code mailbox}, {@code self} or {@code relay:D}. */
  static Route parse(String name) {
    if (name.equals("mailbox")) return MAILBOX;
    if (name.equals("self")) return SELF;
    if (name.startsWith(RELAY_PREFIX)) return new Relay(name.substring(RELAY_PREFIX.length()));
    throw new IllegalArgumentException("a route this version does not know: " + name);
  }

  /**
   * One item per destination of {@code o} for the provider of {@code ourDomain}: our mailboxes, a
   * peer by domain, or ourselves again (an envelope for our own users).
   */
  static List<PecSpool.Item> itemsFor(Outgoing o, String ourDomain) {
    Map<Route, List<String>> byRoute = new LinkedHashMap<>();
    for (String rcpt : o.to()) {
      String d = PecServer.domainOf(rcpt);
      Route r;
      if (!d.equals(ourDomain)) r = new Relay(d);
      else if (o.kind() == DocumentKind.TRANSPORT) r = SELF;
      else r = MAILBOX;
      byRoute.computeIfAbsent(r, k -> new ArrayList<>()).add(rcpt);
    }
    List<PecSpool.Item> items = new ArrayList<>();
    String kind = o.kind() == null ? "message" : o.kind().value;
    byRoute.forEach(
        (r, to) ->
            items.add(new PecSpool.Item(r, kind, o.envelopeFrom(), to, o.messageId(), o.bytes())));
    return items;
  }
}
