package dev.rmq.samples.docs;

import org.junit.jupiter.api.Test;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README and the pages under {@code docs/} are checked like code: every Java snippet is a complete source
 * file that compiles against rmq, and every relative link leads to a file of the repository (and a heading of it,
 * when it names one).
 */
class DocumentationTests {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern TYPE = Pattern.compile(
            "^(?:public |final |abstract )*(?:class|record|interface|enum|@interface) (\\w+)", Pattern.MULTILINE);
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern CODE = Pattern.compile("```.*?```|`[^`\\n]*`", Pattern.DOTALL);

    @Test
    void everyJavaSnippetCompiles() throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> failures = new ArrayList<>();
        int snippets = 0;
        for (Path page : pages()) {
            Matcher block = JAVA_BLOCK.matcher(Files.readString(page));
            for (int index = 1; block.find(); index++) {
                snippets++;
                String where = ROOT.relativize(page) + ", Java snippet " + index;
                String source = block.group(1);
                Matcher type = TYPE.matcher(source);
                if (!type.find()) {
                    failures.add(where + " declares no class: a snippet is a whole file, with its imports");
                    continue;
                }
                Path dir = Files.createTempDirectory("rmq-snippet");
                Path file = dir.resolve(type.group(1) + ".java");
                Files.writeString(file, source);
                DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
                try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
                    boolean compiled = compiler.getTask(null, files, diagnostics,
                            List.of("-proc:none", "-classpath", classPath, "-d", dir.toString()), null,
                            files.getJavaFileObjects(file)).call();
                    if (!compiled) {
                        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                            if (d.getKind() == Diagnostic.Kind.ERROR) {
                                failures.add(where + ", line " + d.getLineNumber() + ": " + d.getMessage(Locale.ROOT));
                            }
                        }
                    }
                } finally {
                    deleteRecursively(dir);
                }
            }
        }
        assertThat(snippets).as("Java snippets found").isGreaterThanOrEqualTo(5);
        assertThat(failures).as("snippets that do not compile").isEmpty();
    }

    @Test
    void everyRelativeLinkResolvesInsideTheRepository() throws IOException {
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path page : pages()) {
            String text = CODE.matcher(Files.readString(page)).replaceAll("");
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // https:, mailto:
                }
                links++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                String where = ROOT.relativize(page) + " -> " + target;
                if (!resolved.startsWith(ROOT)) {
                    broken.add(where + ": outside the repository");
                } else if (!Files.exists(resolved)) {
                    broken.add(where + ": no such file");
                } else if (hash >= 0 && !anchors(resolved).contains(target.substring(hash + 1))) {
                    broken.add(where + ": no such heading");
                }
            }
        }
        assertThat(links).as("relative links found").isGreaterThanOrEqualTo(10);
        assertThat(broken).as("broken links").isEmpty();
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGELOG.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The anchors GitHub makes of a page's headings: lower case, punctuation dropped, spaces as hyphens. */
    private static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new HashSet<>();
        if (!page.toString().endsWith(".md")) {
            return anchors;
        }
        for (String line : CODE.matcher(Files.readString(page)).replaceAll("").split("\n")) {
            if (line.startsWith("#")) {
                String heading = line.replaceFirst("^#+\\s*", "").trim().toLowerCase(Locale.ROOT);
                anchors.add(heading.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
