package dev.rmq.spring.console;

import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The console on a reactive (WebFlux) web server: routes of the application's own, so that its security web
 * filters guard the console too. The {@link ConsoleHandler} calls Redis and blocks, so it runs on the bounded
 * elastic scheduler, never on the server's event loop.
 */
final class ConsoleRoutes {

    private static final CsrfTokens CSRF = new CsrfTokens(CsrfTokens.REACTIVE);
    private static final String[] NO_TOKEN = new String[0];

    private ConsoleRoutes() {
    }

    /** The console at {@code path} ({@code /rmq}) and below it. */
    static RouterFunction<ServerResponse> at(String path, ConsoleHandler handler) {
        return RouterFunctions.route(RequestPredicates.path(path).or(RequestPredicates.path(path + "/**")),
                request -> handle(path, handler, request));
    }

    private static Mono<ServerResponse> handle(String root, ConsoleHandler handler, ServerRequest request) {
        Mono<byte[]> body = request.method().name().equals("POST")
                ? request.bodyToMono(byte[].class).defaultIfEmpty(new byte[0]) : Mono.just(new byte[0]);
        Mono<String> principal = request.principal().map(Principal::getName).defaultIfEmpty("");
        // subscribing to the token makes Spring Security's filter create and save it
        Mono<String[]> token = request.attribute(CsrfTokens.REACTIVE)
                .filter(Mono.class::isInstance).map(attribute -> ((Mono<?>) attribute)
                        .map(csrf -> Optional.ofNullable(CSRF.read(csrf)).orElse(NO_TOKEN)).defaultIfEmpty(NO_TOKEN))
                .orElse(Mono.just(NO_TOKEN));
        return Mono.zip(body, principal, token)
                .publishOn(Schedulers.boundedElastic())
                .map(got -> handler.handle(call(root, request, got.getT1(), got.getT2(), got.getT3())))
                .flatMap(reply -> ServerResponse.status(reply.status())
                        .headers(headers -> reply.headers().forEach(headers::set))
                        .contentType(MediaType.parseMediaType(reply.contentType()))
                        .bodyValue(reply.body()));
    }

    private static ConsoleCall call(String root, ServerRequest request, byte[] body, String principal, String[] token) {
        String full = request.requestPath().pathWithinApplication().value();
        String path = full.length() > root.length() ? full.substring(root.length()) : "";
        Map<String, String> parameters = new HashMap<>();
        request.queryParams().forEach((name, values) -> parameters.put(name, values.isEmpty() ? "" : values.get(0)));
        Object mayWrite = request.attribute(RmqDashboardProperties.CALLER_MAY_WRITE).orElse(null);
        String remote = request.remoteAddress().map(InetSocketAddress::getAddress)
                .map(address -> address.getHostAddress()).orElse("unknown");
        return new ConsoleCall(request.method().name(), path, full.substring(full.lastIndexOf('/') + 1), parameters,
                name -> request.headers().firstHeader(name), mayWrite instanceof Boolean allowed ? allowed : null,
                principal.isEmpty() ? null : principal, remote, token.length == 2 ? token[0] : null,
                token.length == 2 ? token[1] : null, body);
    }
}
