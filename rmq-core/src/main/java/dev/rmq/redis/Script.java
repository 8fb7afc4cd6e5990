package dev.rmq.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts, each loaded once from its resource file with the shared {@code lib.lua} in front and
 * {@code replay.lua} after it (which makes pipelined calls safe to repeat).
 * Their SHA-1 is computed here, so they can be run by EVALSHA without a round trip to load them first.
 */
public enum Script {
    SEND("send.lua"),
    PREPARE("prepare.lua"),
    ACK("ack.lua"),
    EXTEND("extend.lua"),
    KEYS("keys.lua"),
    FENCE("fence.lua"),
    DEAD("dead.lua");

    private final String source;
    private final String sha;

    Script(String file) {
        this.source = read("lib.lua") + "\nlocal function rmq_main()\n" + read(file) + "\nend\n" + read("replay.lua");
        this.sha = sha1(source);
    }

    public String source() {
        return source;
    }

    public String sha() {
        return sha;
    }

    private static String read(String file) {
        try (InputStream in = Script.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + file + " is missing from the rmq-core jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Lua script " + file, e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by the Java platform", e);
        }
    }
}
