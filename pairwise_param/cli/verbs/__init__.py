"""The verbs of ``pairwise-param``, one module each; each exports ``COMMAND``, its entry in
the command table :data:`pairwise_param.cli.main.COMMANDS`."""
