package dev.rmq.samples;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The sample shows how an application uses rmq: through the public API and the starter alone. */
class SampleArchitectureTests {

    private static final JavaClasses SAMPLE = new ClassFileImporter().importPath(Path.of("target", "classes"));

    @Test
    void theSampleUsesOnlyThePublicApi() {
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.rmq.internal..").check(SAMPLE);
    }
}
