package dev.rmq.server.api;

import dev.rmq.codec.PayloadForm;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Shows stored payload bytes as JSON. What this server sends is JSON, but a topic may also hold messages that
 * a Java producer sent as raw text or bytes; those are shown as a JSON string of their UTF-8 text, and said to be
 * text, rather than refused.
 */
@Component
public final class Payloads {

    /** The payload is the JSON value itself. */
    public static final String JSON = "json";
    /** The payload was not JSON; it is shown as a string of its UTF-8 text. */
    public static final String TEXT = "text";
    /** The payload is encrypted, and the API never shows it: the payload is null. */
    public static final String ENCRYPTED = "encrypted";

    /** A payload as the API shows it. */
    public record Rendered(JsonNode payload, String format) {
    }

    private final JsonMapper mapper;

    public Payloads(JsonMapper mapper) {
        this.mapper = mapper;
    }

    /** A stored message's payload, as its headers say it was stored: an encrypted one is never shown. */
    public Rendered render(Map<String, String> headers, byte[] bytes) {
        if (PayloadForm.isEncrypted(headers)) {
            return new Rendered(mapper.nullNode(), ENCRYPTED);
        }
        return render(bytes);
    }

    public Rendered render(byte[] bytes) {
        if (bytes != null && bytes.length > 0) {
            try {
                JsonNode tree = mapper.readTree(bytes);
                if (tree != null && !tree.isMissingNode()) {
                    return new Rendered(tree, JSON);
                }
            } catch (JacksonException e) {
                // not JSON: shown as its text below
            }
        }
        String text = bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
        return new Rendered(mapper.valueToTree(text), TEXT);
    }
}
