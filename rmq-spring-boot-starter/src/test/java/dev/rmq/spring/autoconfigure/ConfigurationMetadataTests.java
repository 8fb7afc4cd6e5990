package dev.rmq.spring.autoconfigure;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The IDE's completion for {@code rmq.topics.<name>.<key>} comes from hand-written metadata, since a map's values
 * are not described by the annotation processor: it must list exactly the keys that start-up accepts.
 */
class ConfigurationMetadataTests {

    @Test
    void describesEveryTopicSettingAndNoOther() throws IOException {
        JsonNode metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/additional-spring-configuration-metadata.json")) {
            metadata = JsonMapper.builder().build().readTree(in);
        }
        List<String> described = new ArrayList<>();
        for (JsonNode property : metadata.get("properties")) {
            String name = property.get("name").asString();
            assertThat(property.get("description").asString()).as(name).isNotBlank();
            if (name.startsWith("rmq.topics.*.")) {
                described.add(name.substring("rmq.topics.*.".length()));
            }
        }
        List<String> accepted = new ArrayList<>();
        for (String setting : TopicKeys.SETTINGS) {
            if (TopicKeys.NESTED.containsKey(setting)) {
                TopicKeys.NESTED.get(setting).forEach(part -> accepted.add(setting + "." + part));
            } else {
                accepted.add(setting);
            }
        }
        assertThat(described).containsExactlyInAnyOrderElementsOf(accepted);
    }
}
