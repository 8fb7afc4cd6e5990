package dev.rmq.codec;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.json.JsonMapper;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

/**
 * JSON through Jackson, with every object's properties sorted so that equal objects give equal bytes.
 * {@code byte[]} payloads pass through untouched and {@code String} payloads are their UTF-8 bytes, so
 * a consumer can read any message as raw bytes or text. No polymorphic default typing is enabled.
 */
public final class JsonPayloadCodec implements PayloadCodec {

    private final ObjectMapper mapper;

    /** A codec with rmq's own deterministic mapper. */
    public JsonPayloadCodec() {
        this(JsonMapper.builder().build());
    }

    /**
     * A codec on the application's mapper, made deterministic: a copy of it sorts properties and map keys.
     */
    public JsonPayloadCodec(JsonMapper applicationMapper) {
        if (applicationMapper == null) {
            throw new IllegalArgumentException("applicationMapper must not be null");
        }
        this.mapper = applicationMapper.rebuild()
                .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
                // records and creator-built classes would otherwise list constructor parameters first
                .disable(MapperFeature.SORT_CREATOR_PROPERTIES_FIRST)
                .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
                .enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED)
                .build();
    }

    @Override
    public byte[] encode(Object payload) {
        if (payload instanceof byte[] raw) {
            return raw;
        }
        if (payload instanceof String text) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        try {
            // Through a tree, because a SortedMap with its own comparator keeps that order even when
            // map entries are to be ordered by key; a tree's properties are always written sorted.
            return mapper.writeValueAsBytes(mapper.valueToTree(payload));
        } catch (JacksonException e) {
            throw new PayloadCodecException("payload of type " + payload.getClass().getName()
                    + " cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public Object decode(byte[] bytes, Type type) {
        if (type == byte[].class) {
            return bytes;
        }
        if (type == String.class) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        try {
            return mapper.readValue(bytes, mapper.getTypeFactory().constructType(type));
        } catch (JacksonException e) {
            throw new PayloadCodecException("payload of " + bytes.length + " bytes cannot be read as "
                    + type.getTypeName() + ": " + e.getOriginalMessage(), e);
        }
    }
}
