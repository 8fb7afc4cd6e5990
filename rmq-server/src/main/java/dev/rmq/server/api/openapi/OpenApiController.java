package dev.rmq.server.api.openapi;

import dev.rmq.server.api.Api;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Serves the API's OpenAPI 3.1 description. It is written by hand, kept in the jar as {@value #RESOURCE}, and a
 * test holds it against the handler methods, so that it names every endpoint the server has and no other.
 */
@RestController
@RequestMapping(Api.V1)
public class OpenApiController {

    /** Where the document lies on the class path. */
    public static final String RESOURCE = "openapi.json";

    private final byte[] document;

    public OpenApiController() {
        try {
            this.document = new ClassPathResource(RESOURCE).getContentAsByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("the jar lacks its API description " + RESOURCE, e);
        }
    }

    @GetMapping("/openapi.json")
    public ResponseEntity<byte[]> document() {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(document);
    }
}
