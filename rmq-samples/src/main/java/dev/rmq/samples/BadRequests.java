package dev.rmq.samples;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import java.util.Map;

/**
 * rmq refuses bad input with an {@link IllegalArgumentException} that says what was wrong (a priority of
 * 16 or less, a deadline in the past, an unknown topic); the API passes that message on as a 400.
 */
@RestControllerAdvice
public class BadRequests {

    @ExceptionHandler(IllegalArgumentException.class)
    @ResponseStatus(HttpStatus.BAD_REQUEST)
    public Map<String, String> badRequest(IllegalArgumentException e) {
        return Map.of("error", e.getMessage());
    }
}
