package dev.rmq.spring.console;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;

/**
 * Reads Spring Security's CSRF token, of its servlet or its reactive kind, without Spring Security on the starter's
 * classpath: a page carries the token, and the console's script sends it back with each write.
 */
final class CsrfTokens {

    /** The servlet stack's token type, and the request attribute Spring Security puts it in. */
    static final String SERVLET = "org.springframework.security.web.csrf.CsrfToken";
    static final String SERVLET_ATTRIBUTE = "_csrf";
    /** The reactive stack's token type, whose name is the exchange attribute that holds a Mono of it. */
    static final String REACTIVE = "org.springframework.security.web.server.csrf.CsrfToken";

    private final @Nullable Method header;
    private final @Nullable Method token;

    /** @param type the token type's name; the reader reads nothing when it is not on the classpath */
    CsrfTokens(String type) {
        ClassLoader loader = CsrfTokens.class.getClassLoader();
        Class<?> kind = ClassUtils.isPresent(type, loader) ? ClassUtils.resolveClassName(type, loader) : null;
        try {
            this.header = kind == null ? null : kind.getMethod("getHeaderName");
            this.token = kind == null ? null : kind.getMethod("getToken");
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("Spring Security's CSRF token has no " + e.getMessage(), e);
        }
    }

    /** The header name and the token value of a token, or null when there is none. */
    String @Nullable [] read(@Nullable Object csrf) {
        Method name = header;
        Method value = token;
        if (csrf == null || name == null || value == null) {
            return null;
        }
        try {
            return new String[] {(String) name.invoke(csrf), (String) value.invoke(csrf)};
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("could not read Spring Security's CSRF token", e);
        }
    }
}
