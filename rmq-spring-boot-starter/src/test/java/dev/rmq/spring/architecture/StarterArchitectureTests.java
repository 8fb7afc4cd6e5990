package dev.rmq.spring.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/** The starter is built on rmq-core's public API alone, as any application is, and its packages form no cycle. */
class StarterArchitectureTests {

    private static final JavaClasses STARTER = new ClassFileImporter().importPath(Path.of("target", "classes"));

    @Test
    void theStarterUsesOnlyTheCoresApi() {
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.rmq.internal..").check(STARTER);
    }

    @Test
    void theStartersPackagesDependOnEachOtherWithoutCycles() {
        slices().matching("dev.rmq.spring.(**)").should().beFreeOfCycles().check(STARTER);
    }
}
