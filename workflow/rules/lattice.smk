# The steps E1 and E2 share (ISDP §5 and App. E.2–E.3): pilot runs to tune the proposal, L-lag
# coupling, draws after the certified iteration, box plots and unbiasedness. One rule each,
# parameterised by the experiment `{exp}` (e1 or e2) and its config block.
LATTICE_EXPERIMENTS = "e1|e2"
NORMS = "l1|l2"


rule lattice_pilot:
    input:
        problem="results/{exp}/problem.json",
    output:
        table="results/tables/{exp}_pilot_{norm}.csv",
    log:
        "results/logs/{exp}_pilot_{norm}.log",
    wildcard_constraints:
        exp=LATTICE_EXPERIMENTS,
        norm=NORMS,
    priority: lattice_priority
    conda:
        ENV
    params:
        eps=lambda wc: config[wc.exp]["eps"],
        pilot=lambda wc: config[wc.exp]["pilot"],
        seed=lambda wc: [SEED, wc.exp, "pilot", wc.norm],
        step="isdp_papers.lattice_study.steps.pilot",
    script:
        STEP


rule lattice_proposals:
    input:
        pilots=lambda wc: expand(
            "results/tables/{exp}_pilot_{norm}.csv",
            exp=wc.exp,
            norm=lattice_norms(wc.exp),
        ),
    output:
        table=report(
            "results/tables/{exp}_proposals.csv",
            caption="../report/proposals.rst",
            category=lattice_category,
            labels={"table": "tuned proposals"},
        ),
    log:
        "results/logs/{exp}_proposals.log",
    wildcard_constraints:
        exp=LATTICE_EXPERIMENTS,
    priority: lattice_priority
    conda:
        ENV
    params:
        norms=lambda wc: lattice_norms(wc.exp),
        targets=lambda wc: config[wc.exp]["targets"],
        acceptance_range=lambda wc: config[wc.exp]["pilot"]["acceptance_range"],
        step="isdp_papers.lattice_study.steps.proposals",
    script:
        STEP


rule lattice_coupling:
    input:
        problem="results/{exp}/problem.json",
    output:
        meetings="results/{exp}/meeting_times_{norm}.csv",
    log:
        "results/logs/{exp}_coupling_{norm}.log",
    wildcard_constraints:
        exp=LATTICE_EXPERIMENTS,
        norm=NORMS,
    priority: lattice_priority
    conda:
        ENV
    params:
        eps=lambda wc: config[wc.exp]["eps"],
        target=lambda wc: config[wc.exp]["targets"][wc.norm],
        coupling=lambda wc: config[wc.exp]["coupling"],
        seed=lambda wc: [SEED, wc.exp, "coupling", wc.norm],
        step="isdp_papers.lattice_study.steps.coupling",
    script:
        STEP


rule lattice_certificate:
    input:
        problem="results/{exp}/problem.json",
    output:
        certificate="results/{exp}/certificate_{norm}.json",
    log:
        "results/logs/{exp}_certificate_{norm}.log",
    wildcard_constraints:
        exp=LATTICE_EXPERIMENTS,
        norm=NORMS,
    priority: lattice_priority
    conda:
        ENV
    params:
        eps=lambda wc: config[wc.exp]["eps"],
        target=lambda wc: config[wc.exp]["targets"][wc.norm],
        coupling=lambda wc: config[wc.exp]["coupling"],
        seed=lambda wc: [SEED, wc.exp, "draws", wc.norm],  # the draws' base: their certificate's stream
        step="isdp_papers.lattice_study.steps.certificate",
    script:
        STEP


rule lattice_draws:
    input:
        problem="results/{exp}/problem.json",
        convergence="results/tables/{exp}_convergence.csv",
        certificate="results/{exp}/certificate_{norm}.json",
    output:
        draws="results/{exp}/draws_{norm}.nc",
        ess="results/tables/{exp}_ess_{norm}.csv",
    log:
        "results/logs/{exp}_draws_{norm}.log",
    wildcard_constraints:
        exp=LATTICE_EXPERIMENTS,
        norm=NORMS,
    priority: lattice_priority
    conda:
        ENV
    params:
        eps=lambda wc: config[wc.exp]["eps"],
        target=lambda wc: config[wc.exp]["targets"][wc.norm],
        draws=lambda wc: config[wc.exp]["draws"],
        seed=lambda wc: [SEED, wc.exp, "draws", wc.norm],
        step="isdp_papers.lattice_study.steps.draws",
    script:
        STEP


rule lattice_unbiasedness:
    input:
        problem="results/{exp}/problem.json",
        draws=lambda wc: expand(
            "results/{exp}/draws_{norm}.nc", exp=wc.exp, norm=lattice_norms(wc.exp)
        ),
        ess=lambda wc: expand(
            "results/tables/{exp}_ess_{norm}.csv",
            exp=wc.exp,
            norm=lattice_norms(wc.exp),
        ),
    output:
        unbiasedness=report(
            "results/tables/{exp}_unbiasedness.csv",
            caption="../report/unbiasedness.rst",
            category=lattice_category,
            labels={"table": "unbiasedness"},
        ),
    log:
        "results/logs/{exp}_unbiasedness.log",
    wildcard_constraints:
        exp=LATTICE_EXPERIMENTS,
    priority: lattice_priority
    conda:
        ENV
    params:
        norms=lambda wc: lattice_norms(wc.exp),
        step="isdp_papers.lattice_study.steps.unbiasedness",
    script:
        STEP


# `{fig}` keeps the paper's figure number in the file name (e1_fig5_boxplots, e2_fig7_boxplots).
rule lattice_boxplots:
    input:
        problem="results/{exp}/problem.json",
        draws=lambda wc: expand(
            "results/{exp}/draws_{norm}.nc", exp=wc.exp, norm=lattice_norms(wc.exp)
        ),
    output:
        fig_pdf="results/figures/{exp}_{fig}_boxplots.pdf",
        fig_png=report(
            "results/figures/{exp}_{fig}_boxplots.png",
            caption="../report/lattice_boxplots.rst",
            category=lattice_category,
            labels=lambda wc: item_label(
                f"results/figures/{wc.exp}_{wc.fig}_boxplots.png"
            ),
        ),
    log:
        "results/logs/{exp}_{fig}_boxplots.log",
    wildcard_constraints:
        exp=LATTICE_EXPERIMENTS,
        fig=r"fig\d+",
    priority: lattice_priority
    conda:
        ENV
    params:
        norms=lambda wc: lattice_norms(wc.exp),
        step="isdp_papers.lattice_study.steps.boxplots",
    script:
        STEP
