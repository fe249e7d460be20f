mod projection;
