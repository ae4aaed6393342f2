package io.pkibench.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class CommandLineSecretsTest {
  @Test
  void redacted_urlUserInfo_hiddenWholeAPasswordWithAnAtToo() {
    assertEquals(
        "pkibench run noop --metrics prometheus-rw=https://***@prom.example:9090/api/v1/write --out r.json",
        CommandLineSecrets.redacted(
            "pkibench run noop --metrics prometheus-rw=https://user:p@ss@prom.example:9090/api/v1/write --out r.json"));
    assertEquals(
        "--metrics otlp=http://***@[::1]:4318",
        CommandLineSecrets.redacted("--metrics otlp=http://token@[::1]:4318"));
  }

  @Test
  void redacted_secretNamedQueryParameters_valuesHiddenOthersKept() {
    assertEquals(
        "--metrics=otlp=https://h/v1?tenant=t1&api_key=***&X-Amz-Signature=***&X-Amz-Credential=***&Token=***&passwd=***&pwd=***"
            + "&client_secret=***&Authorization=***&sig=***&design=ok&empty=&flag",
        CommandLineSecrets.redacted(
            "--metrics=otlp=https://h/v1?tenant=t1&api_key=k1&X-Amz-Signature=s1&X-Amz-Credential=c1&Token=t&passwd=p"
                + "&pwd=p&client_secret=s&Authorization=Bearer%20x&sig=s&design=ok&empty=&flag"));
    assertEquals(
        "https://h/?a=1;password=***#access_token=***&state=s",
        CommandLineSecrets.redacted("https://h/?a=1;password=hunter2#access_token=abc&state=s"));
  }

  @Test
  void redacted_lineWithoutSecrets_unchanged() {
    String line =
        "pkibench run sign --concurrency 1,2 --target https://127.0.0.1:8443/sign?workload=cades --keys remote:127.0.0.1:7000 -o a@b.json";
    assertEquals(line, CommandLineSecrets.redacted(line));
    assertEquals(
        "https://***@h/?key=***",
        CommandLineSecrets.redacted(CommandLineSecrets.redacted("https://u:p@h/?key=v")),
        "redacting twice changes nothing more");
    assertNull(CommandLineSecrets.redacted(null));
  }
}
