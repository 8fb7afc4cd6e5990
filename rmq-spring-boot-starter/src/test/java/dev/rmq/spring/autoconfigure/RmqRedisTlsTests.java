package dev.rmq.spring.autoconfigure;

import dev.rmq.RmqClient;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.embedded.RedisServer;
import dev.rmq.embedded.RedisServerOptions;
import dev.rmq.testsupport.RedisTestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * TLS to a real redis-server: a self-signed certificate made with the JDK's keytool, trusted through a
 * Spring Boot SSL bundle. Skipped only when the redis-server binary was built without TLS (as the
 * embedded-redis 6.2 binary is).
 */
class RmqRedisTlsTests {

    private static Path dir;
    private static RedisServer redis;
    private static int tlsPort;

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RmqRedisAutoConfiguration.class,
                    RmqAutoConfiguration.class))
            .withPropertyValues("rmq.topics.orders.type=FIXED_TIME", "rmq.redis.address=rediss://127.0.0.1:" + tlsPort,
                    "rmq.redis.connect-timeout=2s");

    @BeforeAll
    static void startRedisWithTls() throws Exception {
        dir = Files.createTempDirectory("rmq-tls-");
        Path certificate = dir.resolve("redis.crt");
        Path key = dir.resolve("redis.key");
        selfSignedCertificate(certificate, key);
        try (ServerSocket socket = new ServerSocket(0)) {
            tlsPort = socket.getLocalPort();
        }
        try {
            redis = RedisTestServers.newStandalone(RedisServerOptions.defaults().withArgs("--tls-port",
                    Integer.toString(tlsPort), "--tls-cert-file", certificate.toString(), "--tls-key-file", key.toString(),
                    "--tls-ca-cert-file", certificate.toString(), "--tls-auth-clients", "no"));
        } catch (IllegalStateException e) {
            Assumptions.assumeFalse(String.valueOf(e.getMessage()).contains("Bad directive"),
                    "this redis-server was built without TLS: " + e.getMessage());
            throw e;
        }
    }

    @AfterAll
    static void stopRedis() throws IOException {
        try {
            if (redis != null) {
                redis.close();
            }
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void connectsOverTlsTrustingTheCertificateOfAnSslBundle() {
        contextRunner.withPropertyValues("rmq.redis.ssl.bundle=redis", "rmq.redis.client-name=over-tls",
                "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + dir.resolve("redis.crt")).run(context -> {
            assertThat(context).hasNotFailed();
            RmqClient client = context.getBean(RmqClient.class);
            client.producer().send(OutgoingMessage.fixedTime("orders", "o", Instant.now().plusSeconds(60)).withKey("tls"));
            assertThat(client.producer().exists(MessageRef.of("orders", "tls"))).isTrue();
            List<String> clients = ((String) redis.command("CLIENT", "LIST")).lines()
                    .filter(line -> line.contains("name=over-tls")).toList();
            assertThat(clients).isNotEmpty().allSatisfy(line -> assertThat(line).contains("laddr=127.0.0.1:" + tlsPort));
        });
    }

    @Test
    void refusesAServerWhoseCertificateItDoesNotTrust() {
        contextRunner.run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("rmq could not connect to Redis at single server"
                    + " rediss://127.0.0.1:" + tlsPort);
        });
    }

    /** A 2-day RSA certificate for 127.0.0.1, written as the PEM files redis-server reads. */
    private static void selfSignedCertificate(Path certificate, Path key) throws Exception {
        Path store = dir.resolve("redis.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process process = new ProcessBuilder(keytool, "-genkeypair", "-alias", "redis", "-keyalg", "RSA", "-keysize", "2048",
                "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();

        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keyStore.load(in, "changeit".toCharArray());
        }
        Certificate cert = keyStore.getCertificate("redis");
        Files.writeString(certificate, pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(key, pem("PRIVATE KEY", keyStore.getKey("redis", "changeit".toCharArray()).getEncoded()));
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
