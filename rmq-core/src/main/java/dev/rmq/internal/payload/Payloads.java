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
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static dev.rmq.codec.PayloadForm.COMPRESSION_HEADER;
import static dev.rmq.codec.PayloadForm.KEY_HEADER;
import static dev.rmq.codec.PayloadForm.VERSION_HEADER;

/**
 * A client's codec and its topics' payload forms at work: a send's bytes versioned, compressed and encrypted as its topic's form says, and
 * a read's undone as the message's own headers say, then brought up to the topic's current version. A topic whose
 * form is plain costs one check per send and one header lookup per read.
 */
public final class Payloads {

    /** The headers a send writes itself; a message that brings its own is refused. */
    public static final List<String> RESERVED_HEADERS = List.of(VERSION_HEADER, COMPRESSION_HEADER, KEY_HEADER);

    private final PayloadCodec codec;
    private final @Nullable PayloadKeyRing ring;
    /** Topic, then the version a step reads. */
    private final Map<String, TreeMap<Integer, PayloadUpcaster>> steps;
    private final JsonMapper mapper = JsonMapper.builder().build();

    private Payloads(PayloadCodec codec, @Nullable PayloadKeyRing ring,
                     Map<String, TreeMap<Integer, PayloadUpcaster>> steps) {
        this.codec = codec;
        this.ring = ring;
        this.steps = steps;
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
        Map<String, TreeMap<Integer, PayloadUpcaster>> steps = new HashMap<>();
        for (PayloadUpcaster upcaster : upcasters) {
            if (!topics.contains(upcaster.topic())) {
                throw new IllegalArgumentException(upcaster + " names a topic the client does not know; known: "
                        + topics.all().stream().map(TopicDefinition::name).toList());
            }
            int current = topics.require(upcaster.topic()).payloadForm().version();
            if (upcaster.fromVersion() < 0 || upcaster.fromVersion() >= current) {
                throw new IllegalArgumentException(upcaster + " must start from a version below the topic's current"
                        + " version " + current + ", was " + upcaster.fromVersion());
            }
            PayloadUpcaster before = steps.computeIfAbsent(upcaster.topic(), t -> new TreeMap<>())
                    .putIfAbsent(upcaster.fromVersion(), upcaster);
            if (before != null) {
                throw new IllegalArgumentException("two upcasters of topic '" + upcaster.topic() + "' start from"
                        + " version " + upcaster.fromVersion() + ": " + before + " and " + upcaster);
            }
        }
        return new Payloads(codec, ring, steps);
    }

    /** Payloads of {@code topics} as {@code codec} writes them, none versioned, compressed or encrypted. */
    public static Payloads plain(PayloadCodec codec, TopicRegistry topics) {
        return of(codec, topics, null, List.of());
    }

    /** The bytes the codec writes for {@code payload}, or its own when it is already encoded. */
    public byte[] encode(Object payload) {
        return EncodedPayload.bytesOf(codec, payload);
    }

    /**
     * A stored message's payload, opened and decoded as {@code type}.
     *
     * @throws PayloadCodecException when it cannot be opened or decoded; {@link UndecryptablePayloadException}
     *                               when it cannot be decrypted
     */
    public Object decode(TopicDefinition topic, Map<String, String> headers, byte[] stored, Type type) {
        return codec.decode(open(topic, headers, stored), type);
    }

    /**
     * The topics whose payloads are not plain, one line each, for the start-up log: their form, the upcasters the
     * client has for them, and the key that encrypts new sends. Keys are named by their ids alone.
     */
    public List<String> describe(Collection<TopicDefinition> topics) {
        List<String> lines = new ArrayList<>();
        for (TopicDefinition topic : topics) {
            PayloadForm form = topic.payloadForm();
            if (form.isPlain() && !steps.containsKey(topic.name())) {
                continue;
            }
            StringBuilder line = new StringBuilder("topic ").append(topic.name()).append(": payloads ").append(form);
            if (form.encrypted() && ring != null) {
                line.append(" with key '").append(ring.currentId()).append("' of ").append(ring.ids());
            }
            if (form.version() > 0) {
                List<Integer> from = upcastsFrom(topic.name());
                line.append(from.isEmpty() ? "; no upcasters: a payload of an older version goes to the dead queue"
                        : "; upcasters from versions " + from);
            }
            lines.add(line.toString());
        }
        return lines;
    }

    /** The versions a topic's upcasters start from, in order; empty when it has none. */
    private List<Integer> upcastsFrom(String topic) {
        TreeMap<Integer, PayloadUpcaster> of = steps.get(topic);
        return of == null ? List.of() : List.copyOf(of.keySet());
    }

    /**
     * What a send of {@code plain} to {@code topic} stores.
     *
     * @throws IllegalArgumentException when {@code headers} hold one of the {@link #RESERVED_HEADERS}
     */
    public Sealed seal(TopicDefinition topic, Map<String, String> headers, byte[] plain) {
        if (!headers.isEmpty()) {
            for (String reserved : RESERVED_HEADERS) {
                if (headers.containsKey(reserved)) {
                    throw new IllegalArgumentException("header '" + reserved + "' is written by rmq itself; a message"
                            + " of topic '" + topic.name() + "' cannot bring its own (reserved: " + RESERVED_HEADERS + ")");
                }
            }
        }
        PayloadForm form = topic.payloadForm();
        if (form.isPlain()) {
            return new Sealed(headers, plain);
        }
        Map<String, String> stored = new LinkedHashMap<>(headers);
        byte[] bytes = plain;
        if (form.version() > 0) {
            stored.put(VERSION_HEADER, Integer.toString(form.version()));
        }
        if (form.compresses() && plain.length >= form.compressAbove()) {
            bytes = Deflate.compress(bytes);
            stored.put(COMPRESSION_HEADER, form.compression().code());
        }
        if (form.encrypted() && ring != null) {
            bytes = AesGcm.encrypt(ring.currentKey(), topic.name(), bytes);
            stored.put(KEY_HEADER, ring.currentId());
        }
        return new Sealed(stored, bytes);
    }

    /**
     * The payload of a stored message of {@code topic} as its codec reads it: decrypted, inflated and upcast to the
     * topic's current version, as its headers say.
     *
     * @throws UndecryptablePayloadException when its key is not in the ring, or its bytes fail their tag
     * @throws PayloadCodecException                       when it cannot be inflated or upcast
     */
    public byte[] open(TopicDefinition topic, Map<String, String> headers, byte[] stored) {
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
            bytes = AesGcm.decrypt(ring, keyId, topic.name(), bytes);
        }
        bytes = inflate(headers, bytes);
        int from = version(headers);
        int current = topic.payloadForm().version();
        if (from > current) {
            throw new PayloadCodecException("payload was sent at version " + from + ", newer than the version " + current
                    + " this application reads; requeue it once the application reads version " + from, null);
        }
        return from < current ? upcast(topic.name(), from, current, bytes) : bytes;
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

    private static byte[] inflate(Map<String, String> headers, byte[] bytes) {
        String compression = headers.get(COMPRESSION_HEADER);
        if (compression == null) {
            return bytes;
        }
        try {
            Compression.of(compression);
        } catch (IllegalArgumentException e) {
            throw new PayloadCodecException("payload is compressed with '" + compression + "', which this version of"
                    + " rmq does not read", e);
        }
        return Deflate.decompress(bytes);
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

    private byte[] upcast(String topic, int from, int current, byte[] bytes) {
        TreeMap<Integer, PayloadUpcaster> of = steps.getOrDefault(topic, new TreeMap<>());
        JsonNode node;
        try {
            node = mapper.readTree(bytes);
        } catch (JacksonException e) {
            throw new PayloadCodecException("payload at version " + from + " is not JSON, so it cannot be upcast to "
                    + current + ": " + e.getOriginalMessage(), e);
        }
        for (int version = from; version < current; version++) {
            PayloadUpcaster step = of.get(version);
            if (step == null) {
                throw new PayloadCodecException("payload at version " + from + " needs an upcaster from version "
                        + version + " of topic '" + topic + "' to reach version " + current + "; the client has "
                        + (of.isEmpty() ? "none" : "those from " + of.keySet()), null);
            }
            try {
                node = step.upcast(node);
            } catch (RuntimeException e) {
                throw new PayloadCodecException(step + " failed: " + e, e);
            }
            if (node == null) {
                throw new PayloadCodecException(step + " returned null", null);
            }
        }
        return mapper.writeValueAsBytes(node);
    }

    /** What a send stores: the headers with those the form wrote, and the payload's stored bytes. */
    public record Sealed(Map<String, String> headers, byte[] bytes) {
    }
}
