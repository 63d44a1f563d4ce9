// The man page from the command line's declarations (see man_page.hpp).
#include "app/man_page.hpp"

#include <sstream>

#include "model/version.hpp"

namespace iosweep {
namespace {

// Options a reader looks up by name: every visible option, in declaration order (the option
// table's order, after --help, --version, --config and --rerun).
void options_section(std::ostringstream& out, const CLI::App& app) {
  out << ".SH OPTIONS\n";
  for (const CLI::Option* o : app.get_options()) {
    const std::string name = o->get_name();
    if (name.empty() || !o->nonpositional()) continue;  // hidden, or a command's argument
    std::string names = o->get_name(false, true);       // "-h,--help", written "-h, --help"
    for (auto at = names.find(','); at != std::string::npos; at = names.find(',', at + 2))
      names.replace(at, 1, ", ");
    out << ".TP\n\\fB" << roff_text(names) << "\\fR";
    if (const std::string metavar = o->get_type_name(); !metavar.empty())
      out << " \\fI" << roff_text(metavar) << "\\fR";
    out << '\n' << roff_text(o->get_description());
    if (const std::string d = o->get_default_str(); !d.empty())
      out << " (default: " << roff_text(d) << ")";
    out << '\n';
  }
}

void commands_section(std::ostringstream& out, const CLI::App& app) {
  out << ".SH COMMANDS\n";
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    out << ".TP\n\\fBiosweep " << roff_text(sub->get_name()) << "\\fR";
    for (const CLI::Option* arg : sub->get_options())
      if (arg->get_positional() && !arg->get_name(true).empty())
        out << " \\fI" << roff_text(arg->get_name(true)) << "\\fR";
    out << '\n' << roff_text(sub->get_description()) << '\n';
  }
}

}  // namespace

std::string roff_text(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char ch : text) {
    if (line_start && (ch == '.' || ch == '\'')) out += "\\&";
    line_start = ch == '\n';
    if (ch == '\\')
      out += "\\e";
    else if (ch == '-')
      out += "\\-";
    else
      out += ch;
  }
  return out;
}

std::string render_man_page(const CLI::App& app) {
  std::ostringstream out;
  out << ".\\\" iosweep(1), written by `iosweep help-man` from the option table: do not edit.\n"
      << ".TH IOSWEEP 1 \"\" \"iosweep " << build::kVersion << "\" \"User Commands\"\n"
      << ".SH NAME\niosweep \\- MPI parallel I/O benchmark in the tradition of IOzone, IOR and "
         "mdtest\n"
      << ".SH SYNOPSIS\n"
      << ".B mpirun\n\\-np \\fIN\\fR [\\fIlauncher options\\fR] \\fBiosweep run\\fR \\fB\\-\\-dir"
         "\\fR \\fIDIR\\fR[,\\fIDIR\\fR...] [\\fIoptions\\fR]\n.br\n"
      << ".B iosweep show\n\\fIRESULTS\\fR[:\\fIRUN_ID\\fR] [\\fIRUN_ID\\fR]\n.br\n"
      << ".B iosweep units\n\\fISIZE\\fR...\n.br\n"
      << ".B iosweep\n\\-\\-help | \\-\\-version\n"
      << ".SH DESCRIPTION\n"
      << roff_text(app.get_description()) << '\n'
      << ".PP\nMPI ranks, placed round-robin across nodes, write and read files through the "
         "phases over a sweep of active ranks (or streams); rank 0 prints a table and appends "
         "the run to an HDF5 results file. Options also come from a TOML preset (\\-\\-config) "
         "or a stored run (\\-\\-rerun); the command line wins.\n";
  commands_section(out, app);
  options_section(out, app);
  out << ".SH NOTES\n"
      << roff_text(app.get_footer()) << '\n'
      << ".SH EXIT STATUS\n"
      << "0: the run completed. 1: it failed (an I/O error names rank, host, file, offset and "
         "errno). 2: bad input, refused in one line before anything is created. 130, 143, 138: "
         "stopped by SIGINT, SIGTERM or SIGUSR1, the run marked aborted and its files removed "
         "(SIGUSR1 is the stop mpirun and srun pass on to every rank at once).\n"
      << ".SH FILES\n"
      << ".TP\n.I PREFIX/share/iosweep/modes\nthe presets \\-\\-config finds by name\n"
      << ".TP\n.I PREFIX/share/iosweep/slurm/iosweep.sbatch\nthe Slurm batch script\n"
      << ".TP\n.I PREFIX/share/doc/iosweep\nREADME.md, results.md (the results file, field by "
         "field) and docs/\n"
      << ".SH SEE ALSO\n"
      << "\\fBiosweep\\-load\\fR, \\fBiosweep\\-report\\fR, \\fBiosweep\\-compare\\fR "
         "(each with \\-\\-help), the README (PREFIX/share/doc/iosweep/README.md),\n"
      << ".BR mpirun (1),\n.BR sbatch (1),\n.BR fio (1)\n";
  return out.str();
}

}  // namespace iosweep
