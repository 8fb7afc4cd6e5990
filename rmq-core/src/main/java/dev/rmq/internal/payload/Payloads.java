package dev.rmq.internal.payload;

import dev.rmq.codec.Compression;
import dev.rmq.codec.EncodedPayload;
import dev.rmq.codec.PayloadCodec;
import dev.rmq.codec.PayloadCodecException;
import dev.rmq.codec.PayloadForm;
import dev.rmq.codec.PayloadKeyRing;
import dev.rmq.codec.PayloadUpcaster;
import dev.rmq.codec.UndecryptablePayloadException;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static dev.rmq.codec.PayloadForm.COMPRESSION_HEADER;
import static dev.rmq.codec.PayloadForm.KEY_HEADER;
import static dev.rmq.codec.PayloadForm.VERSION_HEADER;

/**
 * A client's codec and its topics' payload forms at work: a send's bytes versioned, compressed and encrypted as its
 * topic's form says, and a read's undone as the message's own headers say, then brought up to the topic's current
 * version. A topic whose form is plain costs one check per send and one header lookup per read.
 */
public final class Payloads {

    private final PayloadCodec codec;
    private final @Nullable PayloadKeyRing ring;
    private final Upcasts upcasts;

    private Payloads(PayloadCodec codec, @Nullable PayloadKeyRing ring, Upcasts upcasts) {
        this.codec = codec;
        this.ring = ring;
        this.upcasts = upcasts;
    }

    /**
     * The payloads of a client's topics, written by {@code codec}.
     *
     * @throws IllegalArgumentException when a topic encrypts without a key ring, or an upcaster names a topic the
     *                                  client does not know, a version not below its topic's current one, or a
     *                                  version another upcaster already takes
     */
    public static Payloads of(PayloadCodec codec, TopicRegistry topics, @Nullable PayloadKeyRing ring,
                              Collection<PayloadUpcaster> upcasters) {
        for (TopicDefinition topic : topics.all()) {
            if (topic.payloadForm().encrypted() && ring == null) {
                throw new IllegalArgumentException("topic '" + topic.name() + "' encrypts its payloads, but the client"
                        + " has no key ring: give one (RmqClient.Builder.keyRing, or rmq.payload.keys)");
            }
        }
        return new Payloads(codec, ring, Upcasts.of(topics, upcasters));
    }

    /** The bytes the codec writes for {@code payload}, or its own when it is already encoded. */
    public byte[] encode(Object payload) {
        return EncodedPayload.bytesOf(codec, payload);
    }

    /**
     * The topics whose payloads are not plain, one line each, for the start-up log: their form, the key that
     * encrypts new sends, and the upcasters the client has for them. Keys are named by their ids alone.
     */
    public List<String> describe(Collection<TopicDefinition> topics) {
        List<String> lines = new ArrayList<>();
        for (TopicDefinition topic : topics) {
            PayloadForm form = topic.payloadForm();
            if (form.isPlain() && !upcasts.has(topic.name())) {
                continue;
            }
            StringBuilder line = new StringBuilder("topic ").append(topic.name()).append(": payloads ").append(form);
            if (form.encrypted() && ring != null) {
                line.append(" with key '").append(ring.currentId()).append("' of ").append(ring.ids());
            }
            if (form.version() > 0) {
                List<Integer> from = upcasts.from(topic.name());
                line.append(from.isEmpty() ? "; no upcasters: a payload of an older version goes to the dead queue"
                        : "; upcasters from versions " + from);
            }
            lines.add(line.toString());
        }
        return lines;
    }

    /**
     * The headers a send of {@code topic} keeps until it is sealed, as an outbox does: the message's own, with the
     * topic's current version unless the message declares the version of its payload itself.
     */
    public Map<String, String> versioned(TopicDefinition topic, Map<String, String> headers) {
        int version = topic.payloadForm().version();
        if (version == 0 || headers.containsKey(VERSION_HEADER)) {
            return headers;
        }
        Map<String, String> versioned = new LinkedHashMap<>(headers);
        versioned.put(VERSION_HEADER, Integer.toString(version));
        return versioned;
    }

    /**
     * What a send of {@code plain} under {@code key} to {@code topic} stores. A message may declare the version of its
     * payload in {@value PayloadForm#VERSION_HEADER}, up to the topic's current one; the other headers of the form are
     * rmq's own.
     *
     * @throws IllegalArgumentException when {@code headers} hold a compression or key header, or a version the topic
     *                                  cannot have
     */
    public Sealed seal(TopicDefinition topic, String key, Map<String, String> headers, byte[] plain) {
        PayloadForm form = topic.payloadForm();
        if (!headers.isEmpty()) {
            checkGiven(topic, headers);
        }
        if (form.isPlain()) {
            return new Sealed(headers, plain);
        }
        Map<String, String> stored = new LinkedHashMap<>(versioned(topic, headers));
        byte[] bytes = plain;
        if (form.compresses() && plain.length >= form.compressAbove()) {
            byte[] compressed = Deflate.compress(plain);
            // what does not shrink is stored as it is, and read without inflating
            if (compressed.length < plain.length) {
                bytes = compressed;
                stored.put(COMPRESSION_HEADER, form.compression().code());
            }
        }
        if (form.encrypted()) {
            PayloadKeyRing keys = Objects.requireNonNull(ring, "of() refused an encrypted topic without a key ring");
            stored.put(KEY_HEADER, keys.currentId());
            bytes = AesGcm.encrypt(keys.currentKey(), AesGcm.associatedData(topic.name(), key, stored), bytes);
        }
        return new Sealed(stored, bytes);
    }

    private static void checkGiven(TopicDefinition topic, Map<String, String> headers) {
        for (String own : List.of(COMPRESSION_HEADER, KEY_HEADER)) {
            if (headers.containsKey(own)) {
                throw new IllegalArgumentException("header '" + own + "' is written by rmq itself; a message of topic '"
                        + topic.name() + "' cannot bring its own (" + VERSION_HEADER + " it may, to say which version"
                        + " its payload is)");
            }
        }
        String declared = headers.get(VERSION_HEADER);
        int current = topic.payloadForm().version();
        if (declared != null && !isVersion(declared, current)) {
            throw new IllegalArgumentException("header '" + VERSION_HEADER + "' of a message of topic '" + topic.name()
                    + "' must be the version of its payload, 0 to the topic's current " + current + ", was '"
                    + declared + "'");
        }
    }

    private static boolean isVersion(String text, int current) {
        try {
            int version = Integer.parseInt(text);
            return version >= 0 && version <= current;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /**
     * A stored message's payload, opened and decoded as {@code type}.
     *
     * @throws PayloadCodecException when it cannot be opened or decoded; {@link UndecryptablePayloadException}
     *                               when it cannot be decrypted
     */
    public Object decode(TopicDefinition topic, String key, Map<String, String> headers, byte[] stored, Type type) {
        return codec.decode(open(topic, key, headers, stored), type);
    }

    /**
     * The payload of a stored message of {@code topic} as its codec reads it: decrypted, inflated and upcast to the
     * topic's current version, as its headers say.
     *
     * @throws UndecryptablePayloadException when its key is not in the ring, or its bytes fail their tag
     * @throws PayloadCodecException         when it cannot be inflated or upcast
     */
    byte[] open(TopicDefinition topic, String key, Map<String, String> headers, byte[] stored) {
        if (headers.isEmpty() && topic.payloadForm().version() == 0) {
            return stored;
        }
        byte[] bytes = stored;
        String keyId = headers.get(KEY_HEADER);
        if (keyId != null) {
            if (ring == null) {
                throw new UndecryptablePayloadException("payload is encrypted with key '" + keyId
                        + "', and this client has no key ring", null);
            }
            bytes = AesGcm.decrypt(ring, keyId, AesGcm.associatedData(topic.name(), key, headers), bytes);
        }
        bytes = inflate(headers, bytes);
        int from = version(headers);
        int current = topic.payloadForm().version();
        if (from > current) {
            throw new PayloadCodecException("payload was sent at version " + from + ", newer than the version "
                    + current + " this application reads; requeue it once the application reads version " + from, null);
        }
        return from < current ? upcasts.upcast(topic.name(), from, current, bytes) : bytes;
    }

    /**
     * A stored payload as inspection shows it: inflated when it was compressed, and empty when it was encrypted, since
     * inspection never decrypts. Bytes that do not inflate are shown as stored.
     */
    public static byte[] shown(Map<String, String> headers, byte[] stored) {
        if (headers.containsKey(KEY_HEADER)) {
            return new byte[0];
        }
        try {
            return inflate(headers, stored);
        } catch (RuntimeException e) {
            return stored;
        }
    }

    /** The headers a handler sees: the message's own, without those that say how rmq stored its payload. */
    public static Map<String, String> delivered(Map<String, String> headers) {
        if (!headers.containsKey(VERSION_HEADER) && !headers.containsKey(COMPRESSION_HEADER)
                && !headers.containsKey(KEY_HEADER)) {
            return headers;
        }
        Map<String, String> own = new LinkedHashMap<>(headers);
        own.remove(VERSION_HEADER);
        own.remove(COMPRESSION_HEADER);
        own.remove(KEY_HEADER);
        return own;
    }

    private static byte[] inflate(Map<String, String> headers, byte[] bytes) {
        String compression = headers.get(COMPRESSION_HEADER);
        if (compression == null) {
            return bytes;
        }
        Compression how;
        try {
            how = Compression.of(compression);
        } catch (IllegalArgumentException e) {
            throw new PayloadCodecException("payload is compressed with '" + compression + "', which this version of"
                    + " rmq does not read", e);
        }
        return switch (how) {
            case DEFLATE -> Deflate.decompress(bytes);
        };
    }

    private static int version(Map<String, String> headers) {
        String version = headers.get(VERSION_HEADER);
        if (version == null) {
            return 0;
        }
        try {
            int value = Integer.parseInt(version);
            if (value >= 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // falls through
        }
        throw new PayloadCodecException("header " + VERSION_HEADER + " is not a version: '" + version + "'", null);
    }

    /** What a send stores: the headers with those the form wrote, and the payload's stored bytes. */
    public record Sealed(Map<String, String> headers, byte[] bytes) {
    }
}
